"""Reading a running job's files for its owner (condor_tail): its standard output and
error, or files in the directory it runs in, with the rights of the account it runs as
and never through a link, so the job's owner reads nothing they could not read already.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from condorx.errors import Refusal, Refused
from condorx.host import accounts


def resolve(places: dict[str, str], name: str) -> Path:
    """The path of `name` (stdout, stderr, or a file under the job's directory)."""
    if name in ("stdout", "stderr"):
        if name not in places:
            raise Refused(Refusal.NOT_FOUND, f"the job's {name} is not known")
        return Path(places[name])
    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or ".." in parts:
        raise Refused(Refusal.BAD_REQUEST, f"{name}: not a file in the job's directory")
    return Path(places.get("dir", "/nonexistent")) / name


def read(path: Path, offset: int | None, max_bytes: int, account: str | None) -> tuple[bytes, int]:
    """Up to `max_bytes` of the file from `offset` (None: its last `max_bytes`), and its
    size; read as `account` (None: as this daemon)."""
    with accounts.as_account(accounts.of_owner(account) if account else None):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as e:
            raise Refused(Refusal.NOT_FOUND, f"cannot read {path.name}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(Refusal.BAD_REQUEST, f"{path.name} is not a regular file")
        size = info.st_size
        start = max(0, size - max_bytes) if offset is None else min(max(offset, 0), size)
        f.seek(start)
        return f.read(max_bytes), size
