"""The lock file beside the DAG: held (flock) for the whole run, with the DAGMan job's
cluster in it. Found at start, it means the last run was cut off: this run recovers.
Held by a live DAGMan of the same job (a schedd restarted and started this one anew):
this one waits for it to end. Held by another job's DAGMan: this one refuses."""

from __future__ import annotations

import fcntl
import os

import trio

from condorx.dagman.debug_log import DebugLog
from condorx.dagman.errors import DagmanError


async def hold(path: str, cluster: int, out: DebugLog) -> int:
    """The lock, taken; its open descriptor (closing it lets the lock go)."""
    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if _same_file(fd, path):
                break
            os.close(fd)  # the holder ended and removed it: lock the new one
            continue
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            if holder != str(cluster):
                raise DagmanError(
                    "Aborting because it looks like another instance of DAGMan is"
                    " currently running on this DAG; if that is not the case, delete"
                    f" the lock file ({path}) and re-submit the DAG."
                ) from None
            out("Lock file is held by an earlier run of this DAGMan job; waiting")
            out.flush()
            await trio.sleep(1)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{cluster}\n".encode(), 0)
    return fd


def _same_file(fd: int, path: str) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False
