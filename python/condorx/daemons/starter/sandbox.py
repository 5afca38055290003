"""Where a job runs and what it takes and gives back: with file transfer, a scratch
directory holding the files the schedd sent, whose output goes back in the reply;
without (a shared file system), the job's own Iwd and files."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from condorx.classad import ClassAd
from condorx.daemons.starter import launch, output_files
from condorx.host.accounts import Account, as_account
from condorx.host.plainfile import read_plain
from condorx.language.attrs import HoldCode

STDOUT, STDERR = "_condor_stdout", "_condor_stderr"
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


class StdioError(OSError):
    """The job's standard input or output could not be opened: held with HTCondor's
    code for it (7, UnableToOpenOutput; 8, UnableToOpenInput) and the errno as subcode."""

    def __init__(self, path: Path, code: int, e: OSError) -> None:
        super().__init__(e.errno, f"cannot open {path}: {e.strerror}")
        self.code = code


@dataclass
class Sandbox:
    job: ClassAd
    scratch: Path
    transfer: bool
    inputs: frozenset[str] = frozenset()
    account: Account | None = None  # who the job runs as (None: as this starter)
    # Where the job runs and its standard output and error go, once it is started:
    # condor_tail reads them there.
    places: dict[str, str] = field(default_factory=dict)

    @classmethod
    def create(
        cls,
        job: ClassAd,
        scratch: Path,
        files: Mapping[str, bytes] | None,
        account: Account | None = None,
    ) -> Sandbox:
        """The job's sandbox in `scratch`, an empty directory (see `scratch.Scratch`)."""
        if files is not None:
            for fname, data in files.items():
                target = scratch / _safe(fname)
                target.write_bytes(data)
                if fname == _basename(job.get("Cmd")):
                    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP)
        if account is not None:
            account.give(scratch)  # the job's own, and no one else's
        return cls(job, scratch, files is not None, frozenset(files or ()), account)

    def process(
        self,
        slot: str,
        start: Callable[..., launch.Process],
        stopped: bool = False,
        env: dict[str, str] | None = None,
    ) -> launch.Process:
        """Start the job (`stopped`: already suspended, before its first instruction);
        `env` is what the startd says of its slot (its GPUs), over the job's own."""
        job = self.job
        environ = {"PATH": DEFAULT_PATH, **launch.environment(job)}
        environ.update(
            {
                "_CONDOR_SCRATCH_DIR": str(self.scratch),
                "_CONDOR_SLOT": slot,
                "TMPDIR": str(self.scratch),
                **(env or {}),
            }
        )
        cmd = str(job.get("Cmd") or "")
        if self.transfer:
            local = self.scratch / _basename(cmd)
            if local.exists():
                # Named from the working directory: the job's account needs no right
                # to the directories above its scratch directory.
                cmd = f"./{local.name}"
            stdin = self._in_scratch(job.get("In"))
            stdout, stderr = self.scratch / STDOUT, self.scratch / STDERR
            cwd = self.scratch
        else:
            # A shared file system: the job's own paths, relative ones under its Iwd
            # (a fetched job's ad names them so).
            cwd = Path(str(job.get("Iwd") or self.scratch))
            stdin, stdout, stderr = (cwd / _path(job.get(a)) for a in ("In", "Out", "Err"))
        proxy = job.get("X509UserProxy")
        if isinstance(proxy, str) and proxy:
            # Where the job's proxy is: its copy in the scratch directory when it travelled.
            environ["X509_USER_PROXY"] = str(
                self.scratch / _basename(proxy) if self.transfer else cwd / proxy
            )
        self.places = {"dir": str(cwd), "stdout": str(stdout), "stderr": str(stderr)}
        with contextlib.ExitStack() as opened:  # the child has its own copies
            stdio = self._open_stdio(opened, stdin, stdout, stderr)
            argv = [cmd, *launch.arguments(job)]
            return start(argv, environ, cwd, stdio, self.account, stopped=stopped)

    def _open_stdio(
        self, opened: contextlib.ExitStack, stdin: Path, stdout: Path, stderr: Path
    ) -> tuple[IO[bytes], IO[bytes], IO[bytes]]:
        """The job's standard files, opened with its account's rights: as root, an Out
        of /etc/passwd would otherwise be ours to write to, and an In of /etc/shadow ours
        to read. Files in the scratch directory are opened from it (whose the account's
        is), so the directories above it need not be open to that account."""
        here = os.open(self.scratch, os.O_RDONLY | os.O_DIRECTORY)
        opened.callback(os.close, here)
        read, append = os.O_RDONLY, os.O_WRONLY | os.O_APPEND | os.O_CREAT
        files = []
        with as_account(self.account):
            for path, flags, mode in (
                (stdin, read, "rb"),
                (stdout, append, "ab"),
                (stderr, append, "ab"),
            ):
                try:
                    if self.transfer and path.parent == self.scratch:
                        fd = os.open(path.name, flags | os.O_NOFOLLOW, 0o644, dir_fd=here)
                    else:
                        fd = os.open(path, flags, 0o644)
                except OSError as e:
                    code = HoldCode.UNABLE_TO_OPEN_OUTPUT
                    if mode == "rb":
                        code = HoldCode.UNABLE_TO_OPEN_INPUT
                    raise StdioError(path, int(code), e) from None
                files.append(opened.enter_context(os.fdopen(fd, mode)))
        return files[0], files[1], files[2]

    def _in_scratch(self, name: object) -> Path:
        if not isinstance(name, str) or name in ("", "/dev/null"):
            return Path("/dev/null")
        return self.scratch / _basename(name)

    def outputs(self) -> dict[str, bytes]:
        """The files to send back: stdout, stderr and what the job made (or, with
        TransferOutput, what it lists), named as they land (`output_files`)."""
        if not self.transfer:
            return {}
        wanted = self.job.get("TransferOutput")
        listed = wanted if isinstance(wanted, str) else None
        preserve = self.job.get("PreserveRelativePaths") is True
        out = {}
        for name in (STDOUT, STDERR):
            data = read_plain(self.scratch / name)
            if data is not None:
                out[name] = data
        made = output_files.collect(self.scratch, listed, preserve, set(self.inputs))
        return {**out, **made}

    def output_failure(self) -> str | None:
        """Why the output transfer fails (as HTCondor's file transfer says it): a file
        the job lists that it did not make; None when all are there."""
        wanted = self.job.get("TransferOutput")
        if not self.transfer or not isinstance(wanted, str):
            return None
        path = output_files.missing(self.scratch, wanted)
        if path is None:
            return None
        return f"reading from file {path}: (errno {errno.ENOENT}) {os.strerror(errno.ENOENT)}"


def _basename(path: object) -> str:
    return os.path.basename(str(path or ""))


def _safe(name: str) -> str:
    # A file name from the wire never climbs out of the scratch directory.
    base = os.path.basename(name)
    return base if base not in ("", ".", "..") else "_unnamed"


def _path(name: object) -> str:
    return name if isinstance(name, str) and name else "/dev/null"
