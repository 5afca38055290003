"""The account a job runs as. A starter running as root switches to it for the job's
processes and its starter hooks, and gives it the job's scratch directory; a starter
running as anyone else (a personal pool) can only run everything as itself.

Which account is the startd's choice (see condorx.daemons.startd.runas); the starter
only looks it up, on the machine that runs the job (and runs its starter hooks as it).
"""

from __future__ import annotations

import functools
import os
import pwd
from collections.abc import Iterator
from contextlib import contextmanager

from condorx.errors import CondorxError
from condorx.record import record

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    import ctypes
    from pathlib import Path
    from typing import Any


class AccountError(CondorxError):
    """The account the job should run as does not exist here."""


@record(frozen=True)
class Account:
    name: str
    uid: int
    gid: int
    groups: tuple[int, ...]

    @classmethod
    def lookup(cls, name: object) -> Account | None:
        """The account named `name`, or None when no switch is wanted or possible (no
        name given, or this process is not root)."""
        if not isinstance(name, str) or not name or os.geteuid() != 0:
            return None
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            raise AccountError(f"there is no account {name!r} on this machine") from None
        groups = tuple(os.getgrouplist(name, entry.pw_gid))
        return cls(name, entry.pw_uid, entry.pw_gid, groups)

    def popen_options(self) -> dict[str, Any]:
        """What subprocess needs to start a process as this account (it changes user
        after changing directory, so the working directory is entered as root). Nothing
        when this process is that account already: a switch would change nothing, and
        without one subprocess starts the job with vfork rather than copying this
        process's page tables (a millisecond of each short job's start)."""
        if self.is_current():
            return {}
        return {"user": self.uid, "group": self.gid, "extra_groups": list(self.groups)}

    def is_current(self) -> bool:
        """Whether this process already runs as exactly this account (its primary group
        among its groups or not: the rights are the same)."""
        ids = os.getresuid(), os.getresgid()
        same = ids == ((self.uid,) * 3, (self.gid,) * 3)
        return same and {*os.getgroups(), self.gid} == {*self.groups, self.gid}

    def give(self, directory: Path) -> None:
        """Make the directory (made by root, for this account) and everything in it
        this account's: its contents first, itself last, so the account can change
        nothing in it while it is being handed over."""
        for root, dirs, files in os.walk(directory, topdown=False):
            for name in [*dirs, *files]:
                os.lchown(os.path.join(root, name), self.uid, self.gid)
        os.chown(directory, self.uid, self.gid)


NOBODY = "nobody"


def of_owner(owner: object) -> Account | None:
    """Whose rights a root daemon takes to read and write a job's own files: its owner's
    account, or nobody's when this machine has no such account. None when no switch is
    wanted (this daemon is not root, or the owner is root)."""
    if os.geteuid() != 0 or owner == "root":
        return None
    if not isinstance(owner, str) or not owner:
        return Account.lookup(NOBODY)  # whoever it is, not root
    try:
        return Account.lookup(owner)
    except AccountError:
        return Account.lookup(NOBODY)


def options(account: Account | None) -> dict[str, Any]:
    return account.popen_options() if account is not None else {}


@contextmanager
def as_account(account: Account | None) -> Iterator[None]:
    """Open files with the account's rights (and no more) in this thread, for the block.

    Linux's file-system ids (setfsuid, setfsgid) and a raw setgroups are per thread, so
    a daemon with other threads at work (the schedd's commits) is not affected; moving
    the file-system uid off 0 drops root's file capabilities for this thread, as
    capabilities(7) says. The rights are taken back however the block ends."""
    if account is None:
        yield
        return
    libc = _libc()
    groups = os.getgroups()
    _set_groups(libc, account.groups)
    libc.setfsgid(account.gid)
    libc.setfsuid(account.uid)
    try:
        if libc.setfsuid(account.uid) != account.uid:  # returns the id now in force
            raise AccountError(f"cannot take the rights of {account.name}")
        yield
    finally:
        libc.setfsuid(0)
        libc.setfsgid(0)
        _set_groups(libc, tuple(groups))


# The setgroups system call, for this thread only (the C library's setgroups changes
# every thread's).
_SYS_SETGROUPS = {"x86_64": 116, "aarch64": 159}


@functools.cache
def _libc() -> ctypes.CDLL:
    # Imported here: every command-line tool imports this module (for current_user),
    # and only a starter switching accounts needs ctypes.
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _set_groups(libc: ctypes.CDLL, groups: tuple[int, ...]) -> None:
    import ctypes
    import platform

    number = _SYS_SETGROUPS.get(platform.machine())
    if number is None:
        raise AccountError(f"cannot switch accounts per thread on {platform.machine()}")
    array = (ctypes.c_uint * max(1, len(groups)))(*groups)
    if libc.syscall(number, len(groups), array) != 0:
        err = ctypes.get_errno()
        raise AccountError(f"setgroups failed: {os.strerror(err)}")


def current_user() -> str:
    """The name of the user this process runs as (`uid<N>` for a uid with no name)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return f"uid{os.getuid()}"
