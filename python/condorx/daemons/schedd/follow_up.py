"""What every commit asks of the rest of the schedd, read from the ledger's news (a burst
of commits at once): jobs that became Idle are offered to the claims that may reuse them
(or to the schedd itself, for scheduler-universe jobs), and the negotiator is asked for a
cycle; the runs of jobs held or removed are stopped; the gridmanager looks at changed grid
jobs."""

from __future__ import annotations

import logging

import trio

from condorx.daemons.schedd.advertise import Reschedules
from condorx.daemons.schedd.committed import Committed
from condorx.daemons.schedd.gridmanager import GridManager
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.local_jobs import LocalJobs, is_local
from condorx.daemons.schedd.shadow import Shadows
from condorx.daemons.schedd.store import Key
from condorx.errors import Refusal, Refused

log = logging.getLogger("condorx.schedd")


class FollowUp:
    def __init__(
        self,
        ledger: Ledger,
        shadows: Shadows,
        local: LocalJobs,
        grid: GridManager,
        reschedules: Reschedules,
    ) -> None:
        self.ledger = ledger
        self.shadows = shadows
        self.local = local
        self.grid = grid
        self.reschedules = reschedules
        self._aside: trio.Nursery | None = None  # where the negotiator is asked

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        news = self.ledger.news
        async with trio.open_nursery() as aside:
            self._aside = aside
            task_status.started()
            async for first in news:
                burst = [first]
                while True:
                    try:
                        burst.append(news.receive_nowait())
                    except trio.WouldBlock:
                        break
                try:
                    await self._follow(Committed.merged(burst))
                except Exception:
                    # A follow-up's bug must cost that follow-up, never the schedd.
                    log.exception("following up a queue change failed")

    def reschedule(self) -> None:
        """condor_reschedule: the negotiator is asked in the background (it may be slow
        to answer, or down); the asker need not wait for it."""
        if self._aside is None:
            raise Refused(Refusal.BUSY, "the schedd is starting")
        self.reschedules.request(self._aside)

    async def _follow(self, news: Committed) -> None:
        if news.idle:
            local: list[Key] = []
            others: list[Key] = []
            for k in news.idle:  # one pass: a submission's news may name 100,000 jobs
                (local if is_local(self.ledger.get(k)) else others).append(k)
            self.local.note_idle(local)
            if others:
                self.shadows.note_idle(others)
                self.reschedule()
        if news.grid:
            self.grid.poke()
        for key in news.stopped:
            await self.shadows.stop(key)
            await self.local.stop(key)
