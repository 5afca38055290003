"""Reading a file a job could have tampered with, as a root daemon: a regular file's
bytes only, never through a symbolic link (a job's directory could hold a link to a file
only the daemon may read)."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_plain(path: Path) -> bytes | None:
    """The bytes of `path` if it is a regular file and no link; else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # (a directory cannot be fdopen'd)
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read()
