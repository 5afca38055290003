"""The real daemons at scale, on simulated execute machines (condorx.sim).

    python benches/scale_bench.py [--slots 10000] [--per-machine 100] [--timeout 900]

Starts a real collector, negotiator and schedd and the simulator with --slots static
slots (--per-machine to a simulated machine), submits twice as many jobs as slots (one
cluster, each job lasting an hour, so that a slot once busy stays busy), and measures:

- how long the simulator's ads take to reach the collector;
- from the submission's acknowledgement until 95% of the slots are busy;
- the negotiator daemon's cycles (gather, match, hand-out), from its log, and the time
  each match costs it;
- each daemon's resident memory at the end;

side by side with the in-process cycle (`condorx bench`'s, condorx.bench.run) for a pool
of the same size, which is what the daemon's cycle is to be held against (issue 20: the
daemon's cycle <= 2x the in-process one; 95% busy in < 60 s at 100,000 slots).
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

import trio

from condorx.bench import run as bench_run
from condorx.client.collector import CollectorClient
from condorx.client.connection import daemon_credentials
from condorx.testing.pool import LocalPool


def config(slots: int, per_machine: int) -> str:
    machines = max(1, slots // per_machine)
    return (
        f"SIM_MACHINES = {machines}\nNUM_CPUS = {per_machine}\nMEMORY = {per_machine * 1024}\n"
        "SIM_JOB_DURATION = 3600\nSTART = TRUE\n"
        "NEGOTIATOR_INTERVAL = 5\nUPDATE_INTERVAL = 30\nSCHEDD_INTERVAL = 5\n"
        f"MAX_JOBS_PER_SUBMISSION = {max(4 * slots, 20000)}\n"
        # Every daemon is on loopback here: one host holds every claim's connection.
        "MAX_CONNECTIONS_PER_HOST = 19000\n"
    )


def activities(pool: LocalPool) -> list[str]:
    client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    rows = trio.run(client.query_rows, "machine", ["Activity"])
    return [str(r[0]) for r in rows]


def rss_mib(pid: int) -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    m = re.search(r"VmRSS:\s+(\d+) kB", text)
    return int(m.group(1)) / 1024 if m else 0.0


def cycles(pool: LocalPool) -> list[tuple[int, float]]:
    """(matches, seconds) of each negotiation cycle that made matches."""
    text = (pool.root / "log" / "NegotiatorLog").read_text()
    found = re.findall(r"cycle: (\d+) matches, .* ([\d.]+) s$", text, re.MULTILINE)
    return [(int(m), float(s)) for m, s in found if int(m) > 0]


def measure(slots: int, per_machine: int, timeout: float) -> None:
    with tempfile.TemporaryDirectory(prefix="scale") as d:
        pool = LocalPool(Path(d), config(slots, per_machine))
        try:
            pool.start("collector", "negotiator", "schedd")
            started = time.monotonic()
            pool.start("sim")
            while len(activities(pool)) < slots:
                if time.monotonic() - started > timeout:
                    raise SystemExit("the simulated slots never all reached the collector")
                time.sleep(0.5)
            advertised = time.monotonic() - started
            (pool.root / "job.sub").write_text(f"executable = /bin/true\nqueue {2 * slots}\n")
            t0 = time.monotonic()
            pool.cli("condorx.cli.submit", "job.sub")
            submitted = time.monotonic() - t0
            busy, filled = 0, None
            while time.monotonic() - t0 < timeout:
                busy = activities(pool).count("Busy")
                if busy >= 0.95 * slots:
                    filled = time.monotonic() - t0
                    break
                time.sleep(1.0)
            # The cycle that filled the slots is logged once its last match is handed out.
            deadline = time.monotonic() + 120
            while not (done := cycles(pool)) and time.monotonic() < deadline:
                time.sleep(1.0)
            rss = {n: rss_mib(p.proc.pid) for n, p in pool.daemons.items() if p.proc}
        finally:
            pool.stop()
    inproc = bench_run.run(bench_run.Workload(slots=slots, jobs=2 * slots, clusters=1), cycles=1)
    print(f"\n{slots:,} simulated slots ({slots // per_machine} machines), {2 * slots:,} jobs")
    print(f"  ads in the collector after          {advertised:8.1f} s")
    print(f"  condor_submit (acknowledged)         {submitted:8.1f} s")
    if filled is not None:
        print(f"  submission to 95% of slots busy      {filled:8.1f} s")
    else:
        print(f"  95% busy not reached in {timeout:.0f} s: {busy:,} of {slots:,} busy")
    for matches, seconds in done[:5]:
        per = 1000 * seconds / matches
        print(f"  daemon cycle: {matches:6,} matches  {seconds:8.2f} s  ({per:.2f} ms a match)")
    print(
        f"  in-process cycle (condorx bench)     {inproc.cycle_seconds:8.2f} s"
        f"  ({inproc.matches:,} matches)"
    )
    print("  resident memory, MiB: " + ", ".join(f"{n} {v:.0f}" for n, v in sorted(rss.items())))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slots", type=int, nargs="+", default=[10_000])
    ap.add_argument("--per-machine", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=900.0)
    args = ap.parse_args()
    for n in args.slots:
        measure(n, args.per_machine, args.timeout)


if __name__ == "__main__":
    main()
