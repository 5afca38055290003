"""The startd's side of a starter: the process it starts for a claim (forked by
`starter_forks`), and the frames it exchanges with it (see
condorx.daemons.starter.service)."""

from __future__ import annotations

import logging
import os
import signal
import socket
from collections.abc import AsyncGenerator
from multiprocessing.process import BaseProcess
from typing import Any

import trio

from condorx.classad import ClassAd
from condorx.daemons.startd import starter_forks
from condorx.transport import wire
from condorx.transport.protocol.starter import SignalJob, StartJob

log = logging.getLogger("condorx.startd")


class StarterProcess:
    def __init__(self, process: BaseProcess, ch: wire.Channel) -> None:
        self.process = process
        self.ch = ch
        self.job_pid: int | None = None
        # Where the running job is (dir) and its stdout and stderr go, as its starter said.
        self.places: dict[str, str] = {}
        self.closed = False

    @classmethod
    async def spawn(cls, log_file: str | None = None) -> StarterProcess:
        ours, theirs = socket.socketpair()
        try:
            process = starter_forks.process(theirs, log_file)
            await trio.to_thread.run_sync(process.start)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()  # the starter has its own copy now
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
        return cls(process, wire.StreamChannel(stream))

    @property
    def alive(self) -> bool:
        return not self.closed and self.process.exitcode is None

    @property
    def pid(self) -> int | None:
        return self.process.pid

    async def run(self, request: StartJob, job: ClassAd) -> AsyncGenerator[dict[str, Any], None]:
        """Start a job; yields the starter's frames until (and with) the last one."""
        await self.ch.send(request.to_wire())
        while True:
            frame = await self.ch.receive()
            if not isinstance(frame, dict):
                continue
            if "started" in frame:
                self.job_pid = int(frame["started"])
                self.places = {
                    k: str(frame[k])
                    for k in ("dir", "stdout", "stderr")
                    if isinstance(frame.get(k), str)
                }
            yield frame
            if any(k in frame for k in ("done", "failed", "missed", "vacated")):
                self.job_pid = None
                self.places = {}
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

    def kill(self) -> None:
        """Kill the job's tree and the starter itself (`close` then reaps it)."""
        self.kill_job()
        if self.alive:
            self.process.kill()

    async def _exited(self, within: float) -> bool:
        with trio.move_on_after(within):
            await trio.lowlevel.wait_readable(self.process.sentinel)
        return not self.alive

    async def close(self) -> None:
        """End the claim: the starter kills what it still runs and exits."""
        if self.closed:
            return
        try:
            await self.ch.aclose()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        if not await self._exited(5):
            self.process.kill()
            await self._exited(5)
        self.kill_job()
        if not self.alive:
            self.closed = True
            self.process.close()  # its sentinel, and multiprocessing's record of it
