"""The simulated execution backend: what takes a starter's place on a simulated machine.
The startd's own code hands it a job as it would a starter process (`Starter`); the job
"runs" for its simulated duration (its `SimDuration`, else SIM_JOB_DURATION, see
`durations`), with a heartbeat on the run call as a starter's, and ends with exit code 0.
Its next moment (its end, its next heartbeat) is kept by the simulator's one timer
(`alarms`).

Signals act as they would on a job's process tree: SIGSTOP stops its clock and SIGCONT
starts it again (the policy's suspension, condor_suspend); SIGTERM and SIGKILL end it,
killed by that signal. A simulated job reads no input and leaves no output, and runs no
process of this host: `job_pid` stays None, so the startd measures no load for it.
"""

from __future__ import annotations

import itertools
import signal
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import trio

from condorx.classad import ClassAd
from condorx.daemons.startd.starter_port import Spawn, Starter
from condorx.sim.alarms import Alarms
from condorx.sim.durations import Durations
from condorx.transport.protocol.starter import StartJob


class SimStarter:
    def __init__(self, durations: Durations, pids: Iterator[int], alarms: Alarms) -> None:
        self.durations = durations
        self.alarms = alarms
        self.pids = pids  # the simulated pids the schedd is told of
        self.job_pid: int | None = None
        self.places: dict[str, str] = {}
        self.closed = False
        self._ended_by: int | None = None  # the signal that ended the running job
        self._stopped = False
        self._signalled = trio.Event()
        self._left = 0.0  # seconds of its work left to do
        self._mark = 0.0  # when `_left` was last counted

    @property
    def alive(self) -> bool:
        return not self.closed

    @property
    def pid(self) -> int | None:
        return None

    async def run(self, request: StartJob, job: ClassAd) -> AsyncGenerator[dict[str, Any], None]:
        job_id = f"{job.get('ClusterId')}.{job.get('ProcId')}"
        self._left = self.durations.of(job_id, job.get("SimDuration"))
        self._ended_by, self._stopped = None, False
        self._mark = started = trio.current_time()
        # Its work goes on while a frame is on its way to the schedd, too.
        yield {"started": next(self.pids)}
        beat = max(0.001, float(request.heartbeat or 0) or 300.0)
        next_beat = started + beat
        while self._ended_by is None:
            self._advance()
            now = trio.current_time()
            if not self._stopped and self._left <= 0:
                break
            wait = next_beat - now if self._stopped else min(self._left, next_beat - now)
            self.alarms.at(now + max(0.0, wait), self._signalled)
            await self._signalled.wait()
            self._signalled = trio.Event()
            self._advance()
            now = trio.current_time()
            if now >= next_beat and self._ended_by is None and (self._stopped or self._left > 0):
                yield {"alive": int(now)}
                next_beat = now + beat
        wall = trio.current_time() - started
        if self._ended_by is None:
            outcome = {"ExitBySignal": False, "ExitCode": 0, "RemoteUserCpu": 0.0}
            yield {"done": {"outcome": outcome, "wall": wall, "files": {}}}
        else:
            outcome = {"ExitBySignal": True, "ExitSignal": self._ended_by}
            yield {"done": {"outcome": outcome, "wall": wall}}

    def _advance(self) -> None:
        """Count the work done since the last count (none while stopped)."""
        now = trio.current_time()
        if not self._stopped:
            self._left -= now - self._mark
        self._mark = now

    async def send_signal(self, sig: int, why: str = "") -> None:
        self._advance()  # the work done until now counts as the job was until now
        if sig == signal.SIGSTOP:
            self._stopped = True
        elif sig == signal.SIGCONT:
            self._stopped = False
        elif sig in (signal.SIGTERM, signal.SIGKILL, signal.SIGINT, signal.SIGQUIT):
            self._end(sig)
        self._signalled.set()

    def kill_job(self, sig: int = signal.SIGKILL) -> None:
        self._end(sig)

    def kill(self) -> None:
        self._end(signal.SIGKILL)
        self.closed = True

    async def close(self) -> None:
        self.kill()

    def _end(self, sig: int) -> None:
        if self._ended_by is None:
            self._ended_by = int(sig)
        self._signalled.set()


def backend(durations: Durations, alarms: Alarms) -> Spawn:
    """The `Spawn` of a simulated machine's startd: a simulated starter for each claim,
    numbering its jobs' pids from 100,000 across the whole simulator, woken by `alarms`
    (whose task the simulator runs)."""
    pids = itertools.count(100_000)

    async def spawn(log_file: str | None) -> Starter:
        return SimStarter(durations, pids, alarms)

    return spawn
