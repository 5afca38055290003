"""Where a job runs and what it takes and gives back: with file transfer, a scratch
directory holding the files the schedd sent, whose output goes back in the reply;
without (a shared file system), the job's own Iwd and files."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from condorx.classad import ClassAd
from condorx.daemons.starter import launch

STDOUT, STDERR = "_condor_stdout", "_condor_stderr"
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass
class Sandbox:
    job: ClassAd
    scratch: Path
    transfer: bool
    inputs: frozenset[str] = frozenset()

    @classmethod
    def create(
        cls, job: ClassAd, root: Path, name: str, files: Mapping[str, bytes] | None
    ) -> Sandbox:
        scratch = root / name
        scratch.mkdir(parents=True, exist_ok=False)
        if files is not None:
            for fname, data in files.items():
                target = scratch / _safe(fname)
                target.write_bytes(data)
                if fname == _basename(job.get("Cmd")):
                    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP)
        return cls(job, scratch, files is not None, frozenset(files or ()))

    def process(self, slot: str, start: Callable[..., launch.Process]) -> launch.Process:
        job = self.job
        env = {"PATH": DEFAULT_PATH, **launch.environment(job)}
        env.update(
            {
                "_CONDOR_SCRATCH_DIR": str(self.scratch),
                "_CONDOR_SLOT": slot,
                "TMPDIR": str(self.scratch),
            }
        )
        cmd = str(job.get("Cmd") or "")
        if self.transfer:
            local = self.scratch / _basename(cmd)
            if local.exists():
                cmd = str(local)
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
            env["X509_USER_PROXY"] = str(
                self.scratch / _basename(proxy) if self.transfer else cwd / proxy
            )
        return start([cmd, *launch.arguments(job)], env, cwd, stdin, stdout, stderr)

    def _in_scratch(self, name: object) -> Path:
        if not isinstance(name, str) or name in ("", "/dev/null"):
            return Path("/dev/null")
        return self.scratch / _basename(name)

    def outputs(self) -> dict[str, bytes]:
        """The files to send back: stdout, stderr and what the job made (or, with
        TransferOutput, just those files)."""
        if not self.transfer:
            return {}
        wanted = self.job.get("TransferOutput")
        names = (
            [n.strip() for n in wanted.split(",") if n.strip()]
            if isinstance(wanted, str) and wanted
            else [
                p.name for p in self.scratch.iterdir() if p.is_file() and p.name not in self.inputs
            ]
        )
        out = {}
        for name in dict.fromkeys([STDOUT, STDERR, *names]):
            p = self.scratch / _safe(name)
            if p.is_file():
                out[name] = p.read_bytes()
        return out

    def remove(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


def _basename(path: object) -> str:
    return os.path.basename(str(path or ""))


def _safe(name: str) -> str:
    # A file name from the wire never climbs out of the scratch directory.
    base = os.path.basename(name)
    return base if base not in ("", ".", "..") else "_unnamed"


def _path(name: object) -> str:
    return name if isinstance(name, str) and name else "/dev/null"
