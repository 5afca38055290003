"""Running a job's process: its arguments and environment as the job ad writes them, its
own session (so the whole process tree can be signalled), and the resources it used.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import trio

from condorx.classad import ClassAd
from condorx.host.accounts import Account, options
from condorx.host.procfs import stat_fields
from condorx.language.argsyntax import split_v2


@dataclass(frozen=True)
class Outcome:
    exit_code: int | None
    signal: int | None
    user_cpu: float
    sys_cpu: float
    max_rss_kb: int
    wall: float

    def attrs(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ExitBySignal": self.signal is not None,
            "RemoteUserCpu": round(self.user_cpu, 3),
            "RemoteSysCpu": round(self.sys_cpu, 3),
            "ImageSize": self.max_rss_kb,
            "MemoryUsage": (self.max_rss_kb + 1023) // 1024,
        }
        if self.signal is not None:
            out["ExitSignal"] = self.signal
        else:
            out["ExitCode"] = self.exit_code
        return out


def arguments(job: ClassAd) -> list[str]:
    v2 = job.get("Arguments")
    if isinstance(v2, str) and v2:
        return split_v2(v2)
    v1 = job.get("Args")
    return v1.split() if isinstance(v1, str) else []


def environment(job: ClassAd) -> dict[str, str]:
    env: dict[str, str] = {}
    v2 = job.get("Environment")
    v1 = job.get("Env")
    words = (
        split_v2(v2)
        if isinstance(v2, str) and v2
        else ([w for w in v1.split(";") if w] if isinstance(v1, str) else [])
    )
    for word in words:
        name, eq, value = word.partition("=")
        if eq and name:
            env[name] = value
    return env


# Stops itself, then (once continued) becomes the job: a job suspended before it started
# must not run a single instruction first (a SIGSTOP sent after the spawn can come late).
_STOPPED_START = ["/bin/sh", "-c", 'kill -STOP $$ && exec "$@"', "sh"]


def _state(pid: int) -> str:
    """A process's state letter from /proc ("" when it is gone)."""
    fields = stat_fields(pid)
    return fields[0] if fields else ""


class Process:
    """A running job: its own session, signalled as a whole."""

    def __init__(
        self,
        argv: list[str],
        env: Mapping[str, str],
        cwd: Path,
        stdio: tuple[IO[bytes], IO[bytes], IO[bytes]],
        account: Account | None = None,
        stopped: bool = False,
    ) -> None:
        self.started = time.time()
        stdin, stdout, stderr = stdio
        self.popen = subprocess.Popen(
            [*_STOPPED_START, *argv] if stopped else argv,
            env=dict(env),
            cwd=cwd,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            close_fds=True,
            **options(account),
        )
        self.pid = self.popen.pid

    async def until_stopped(self, longest: float = 5.0) -> None:
        """Until the process is stopped (a stopped start has reached its SIGSTOP), or has
        ended; at most `longest` seconds."""
        with trio.move_on_after(longest):
            while _state(self.pid) not in ("T", "t", "Z", ""):
                await trio.sleep(0.002)

    def signal(self, sig: int) -> None:
        """Send `sig` to the job's whole process tree (its session's process group)."""
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            pass

    async def wait(self) -> Outcome:
        try:
            _, status, usage = await _wait4(self.pid)
        except BaseException:
            self.signal(signal.SIGKILL)
            raise
        # The job's own children may outlive it in its process group: end them too.
        self.signal(signal.SIGKILL)
        self.popen.returncode = 0  # reaped above; keep Popen from waiting again
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        return Outcome(
            code, sig, usage.ru_utime, usage.ru_stime, usage.ru_maxrss, time.time() - self.started
        )


async def _wait4(pid: int) -> tuple[int, int, Any]:
    """os.wait4 of our child `pid`, without blocking the event loop: its pidfd becomes
    readable when it exits (no thread handed a blocking wait for every job), else, on
    a kernel without pidfds, a thread waits."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return await trio.to_thread.run_sync(os.wait4, pid, 0, abandon_on_cancel=True)
    try:
        await trio.lowlevel.wait_readable(fd)
    finally:
        os.close(fd)
    return os.wait4(pid, 0)
