"""The backfill client on a lifeline to its startd.

    python -m condorx.daemons.startd.lifeline <client argv...>

The startd starts this in a process group of its own, with a pipe as standard input
that only the startd holds. This runs the client in the same group and waits. When the
client exits, this exits with its status. When the pipe reaches end of file, the startd
is gone (even by kill -9, which leaves it no chance to clean up), and the whole group,
the client's descendants included, is killed: nothing runs on a machine without the
startd that answers for it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading


def _watch_the_startd() -> None:
    while os.read(0, 4096):
        pass
    os.killpg(0, signal.SIGKILL)


def main() -> None:
    argv = sys.argv[1:]
    if not argv:
        sys.exit("usage: python -m condorx.daemons.startd.lifeline <client> [args...]")
    # The startd stops the client by signalling the group: SIGTERM is for the client to
    # handle (this must outlive it, so that the startd sees when the client has really
    # exited). A handler, unlike SIG_IGN, is not inherited by the client.
    signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        client = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    except OSError as e:
        sys.exit(f"cannot start the backfill client {argv[0]}: {e.strerror}")
    threading.Thread(target=_watch_the_startd, daemon=True).start()
    code = client.wait()
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
