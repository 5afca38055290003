"""What the startd asks of a claim's starter, whatever runs the job: a starter process
(`starter_process`), a simulated execution backend (`condorx.sim.starter`), or a test's
starter that runs nothing."""

from __future__ import annotations

import signal
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, Protocol

from condorx.classad import ClassAd
from condorx.transport.protocol.starter import StartJob


class Starter(Protocol):
    # The job's process group on this host while it runs (the startd measures its load
    # and condor_who shows it); None when no process of this host runs it.
    job_pid: int | None
    # Where the running job is (dir) and its stdout and stderr go (condor_tail).
    places: dict[str, str]

    @property
    def alive(self) -> bool: ...

    @property
    def pid(self) -> int | None:
        """The starter's own process (condor_who's StarterPid), if it is one."""
        ...

    def run(self, request: StartJob, job: ClassAd) -> AsyncGenerator[dict[str, Any], None]:
        """Start a job; its frames until (and with) the last one: `started`, `alive`
        heartbeats, then `done` (or `failed`, `missed`, `vacated`). `job` is the
        request's job ad, read already: a backend in this process reads it there rather
        than decoding `request.job` again. The caller closes it (`aclose`) once it has
        the last frame."""
        ...

    async def send_signal(self, sig: int, why: str = "") -> None:
        """Signal the job; `why` (evict, hold, remove) is for its JOB_EXIT hook."""
        ...

    def kill_job(self, sig: int = signal.SIGKILL) -> None:
        """Signal the job directly (its starter is gone)."""
        ...

    def kill(self) -> None:
        """Kill the job and the starter itself (`close` then reaps it)."""
        ...

    async def close(self) -> None:
        """End the claim: the starter ends what it still runs and is gone."""
        ...


# How a claim's starter is started, given STARTER_LOG.
Spawn = Callable[[str | None], Awaitable[Starter]]
