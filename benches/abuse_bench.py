"""What a stranger can do to a daemon before it authenticates: the attacks of issue 19,
against a real collector and schedd on loopback, with the figures side by side.

    python benches/abuse_bench.py [--big 8] [--sent-mib 30] [--idle 200] [--wait 30]

1. `--big` connections each announce a 250 MiB frame and send `--sent-mib` MiB of it:
   each daemon's resident memory before and after (the limit before authentication is
   64 KiB, so the daemon reads the header and refuses);
2. `--idle` connections that never authenticate: how many are still open after `--wait`
   seconds (the handshake bound is SEC_DEFAULT_AUTHENTICATION_TIMEOUT, 20 s by default).
"""

from __future__ import annotations

import argparse
import socket
import struct
import tempfile
import threading
import time
from pathlib import Path

from condorx.testing.pool import QUICK_POOL, LocalPool


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def endpoint(address: str) -> tuple[str, int]:
    host, _, port = address.strip("<>").split("?")[0].rpartition(":")
    return host, int(port)


def big_frames(addr: tuple[str, int], count: int, sent_mib: int) -> None:
    def one() -> None:
        with socket.create_connection(addr) as s:
            s.recv(4096)  # the daemon's hello
            s.sendall(struct.pack(">I", 250 * 1024 * 1024))
            chunk = b"\0" * (1 << 20)
            try:
                for _ in range(sent_mib):
                    s.sendall(chunk)
            except OSError:
                pass  # refused and closed part way: what we want to see

    threads = [threading.Thread(target=one) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def still_open(socks: list[socket.socket]) -> int:
    """Connections the daemon has not closed (a closed one reads as EOF)."""
    n = 0
    for s in socks:
        s.setblocking(False)
        try:
            while True:
                data = s.recv(65536)
                if not data:
                    break
        except BlockingIOError:
            n += 1  # nothing more to read, and not closed
        except OSError:
            pass
    return n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", type=int, default=8)
    ap.add_argument("--sent-mib", type=int, default=30)
    ap.add_argument("--idle", type=int, default=200)
    ap.add_argument("--wait", type=float, default=30.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        pool = LocalPool(Path(d), QUICK_POOL)
        pool.start("collector", "schedd")
        try:
            print(f"{'daemon':<10} {'RSS before':>11} {'RSS after':>10} {'growth':>8}  attack")
            for name in ("collector", "schedd"):
                proc = pool.daemon(name).proc
                assert proc is not None
                addr = endpoint(pool.daemon(name).address())
                before = rss_mib(proc.pid)
                big_frames(addr, args.big, args.sent_mib)
                time.sleep(1)
                after = rss_mib(proc.pid)
                print(
                    f"{name:<10} {before:>8.1f} MiB {after:>6.1f} MiB {after - before:>5.1f} MiB"
                    f"  {args.big} x 250 MiB announced, {args.sent_mib} MiB sent each"
                )
            for name in ("collector", "schedd"):
                addr = endpoint(pool.daemon(name).address())
                socks = [socket.create_connection(addr) for _ in range(args.idle)]
                time.sleep(args.wait)
                print(
                    f"{name:<10} {still_open(socks)} of {args.idle} unauthenticated connections "
                    f"still open after {args.wait:g} s"
                )
                for s in socks:
                    s.close()
        finally:
            pool.stop()


if __name__ == "__main__":
    main()
