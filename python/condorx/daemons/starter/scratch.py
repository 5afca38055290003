"""A starter's scratch directory (`<base>_<n>` in the startd's EXECUTE directory):
made for the claim's first job, emptied after each job, and removed when the claim is
over, so that a claim running thousands of short jobs does not make and remove a
directory for each. On ext4 a mkdir or rmdir waits its turn in the file system's
journal, which the schedd's durable commits keep busy: measured, removing each job's
directory was a third of a starter's time.

What one job leaves never reaches the next: everything in the directory goes between
jobs, and a directory that cannot be emptied, or whose jobs change account or EXECUTE
directory, is removed whole and the next job gets a fresh one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from condorx.host.accounts import Account


class Scratch:
    def __init__(self, base: str) -> None:
        self.base = base
        self.made = 0  # directories made so far; the current one is the last
        self.path: Path | None = None
        self.account: Account | None = None

    def take(self, root: Path, account: Account | None) -> Path:
        """The directory under `root` for a job of `account`, empty."""
        if self.path is not None and (
            self.path.parent != root or account != self.account or not self.path.is_dir()
        ):
            self.remove()
        if self.path is not None:
            return self.path
        self.made += 1
        path = root / f"{self.base}_{self.made}"
        path.mkdir(parents=True, exist_ok=False, mode=0o700)
        self.path, self.account = path, account
        return path

    def clear(self) -> None:
        """After a job: everything in the directory removed (a file or directory that
        will not go takes the directory with it)."""
        if self.path is None:
            return
        try:
            with os.scandir(self.path) as found:
                entries = list(found)
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
        except OSError:
            self.remove()

    def remove(self) -> None:
        """The directory gone (the claim is over, or it could not be emptied)."""
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None
