"""The startd's side of a starter: the process it spawns for a claim, and the frames it
exchanges with it (see condorx.daemons.starter.service)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import trio

from condorx import wire
from condorx.protocol.starter import SignalJob, StartJob

log = logging.getLogger("condorx.startd")


class StarterProcess:
    def __init__(self, process: trio.Process, ch: wire.Channel) -> None:
        self.process = process
        self.ch = ch
        self.job_pid: int | None = None

    @classmethod
    async def spawn(cls, log_file: str | None = None) -> StarterProcess:
        argv = [sys.executable, "-m", "condorx.daemons.starter.service"]
        process = await trio.lowlevel.open_process(
            argv + (["--log", log_file] if log_file else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=dict(os.environ),
        )
        assert process.stdin is not None and process.stdout is not None
        return cls(process, wire.StreamChannel(trio.StapledStream(process.stdin, process.stdout)))

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def run(self, request: StartJob) -> AsyncIterator[dict[str, Any]]:
        """Start a job; yields the starter's frames until (and with) the last one."""
        await self.ch.send(request.to_wire())
        while True:
            frame = await self.ch.receive()
            if not isinstance(frame, dict):
                continue
            if "started" in frame:
                self.job_pid = int(frame["started"])
            yield frame
            if any(k in frame for k in ("done", "failed", "missed", "vacated")):
                self.job_pid = None
                return

    async def send_signal(self, sig: int, why: str = "") -> None:
        """Signal the job's tree; `why` (evict, hold, remove) is for its JOB_EXIT hook."""
        try:
            await self.ch.send(SignalJob(int(sig), why).to_wire())
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.kill_job(sig)

    def kill_job(self, sig: int = signal.SIGKILL) -> None:
        """Signal the job's process tree directly (its starter is gone)."""
        if self.job_pid is not None:
            try:
                os.killpg(self.job_pid, sig)
            except ProcessLookupError:
                pass

    async def close(self) -> None:
        """End the claim: the starter kills what it still runs and exits."""
        try:
            await self.ch.aclose()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        with trio.move_on_after(5):
            await self.process.wait()
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        self.kill_job()
