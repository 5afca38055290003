"""The schedd's own passes over its queue: settling it at start (jobs marked Running lost
their claims with the old schedd; idle cron jobs' next runs from now) and the periodic
policy every PERIODIC_EXPR_INTERVAL (manual: condor_submit's periodic_* commands, and the
SYSTEM_PERIODIC_* knobs)."""

from __future__ import annotations

import logging
import time

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.schedd import policy, routing, transitions
from condorx.daemons.schedd.clock import Clock
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.queue import Transaction
from condorx.language.attrs import JobStatus, Universe
from condorx.language.config import Config

log = logging.getLogger("condorx.schedd")


class Upkeep:
    def __init__(self, cfg: Config, ledger: Ledger, clock: Clock) -> None:
        self.cfg = cfg
        self.ledger = ledger
        self.clock = clock
        # Jobs that had a run when the schedd stopped ran on claims it no longer holds:
        # running or suspended ones run again, and removed or held ones whose run was
        # still being stopped are settled at once (a removed one leaves), not left in X
        # for a lease no startd will keep. (An original tied to a routed copy only
        # mirrors its copy's status; a grid job runs in another pool.)
        self._orphans = [
            k
            for k, ad in ledger.snapshot()
            if _had_a_run(ad)
            and not routing.is_managed(ad)
            and ad.get("JobUniverse") != Universe.GRID
        ]

    async def requeue_orphans(self) -> None:
        """After a restart: jobs marked Running have lost their claims; run them again."""
        why, now, orphans = "the schedd restarted", self.clock(), self._orphans

        def requeue(txn: Transaction) -> None:
            for key in orphans:
                transitions.lose_running(txn, key, why, now)

        if orphans:
            await self.ledger.change(requeue)
        self._orphans = []

    async def recompute_cron(self) -> int:
        """Every idle cron job's next run from now, as on a restart or condor_reconfig (the
        zone may have changed); returns how many DeferralTimes moved.

        An idle cron job's DeferralTime is derived state: this pass recomputes it at every
        start, so the new times are set in the table and reach the disk with the job's next
        change, not in a 100,000-row rewrite now (after a kill -9 the next start computes
        the same times again). Holds of invalid schedules are real changes, and committed."""
        now = self.clock()
        started = time.perf_counter()
        rules = self.ledger.queue.deferral
        changed, invalid = rules.recompute(self.ledger.snapshot(), now)
        for key, t in changed.items():
            ad = self.ledger.get(key)
            if ad is not None:
                ad["DeferralTime"] = t

        def hold(txn: Transaction) -> None:
            code = transitions.HoldCode.INVALID_CRON_SETTINGS
            for key, why in invalid.items():
                transitions.hold(txn, key, why, code, 0, now)

        if invalid:
            await self.ledger.change(hold)
        log.info(
            "cron: %d next runs moved, %d invalid schedules held, in %.3f s (zone %s)",
            len(changed),
            len(invalid),
            time.perf_counter() - started,
            rules.zone or "local",
        )
        return len(changed)

    async def periodic(self) -> int:
        """One pass of the periodic expressions over the whole queue; a running job that
        they hold or remove is stopped on its slot (by the follow-up)."""
        system = self._system_policy()
        now = self.clock()
        changed = await self.ledger.change(
            lambda txn: policy.evaluate(txn, self.ledger.snapshot(), now, system)
        )
        return len(changed)

    async def periodic_loop(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        task_status.started()
        interval = max(1, self.cfg.get_int("PERIODIC_EXPR_INTERVAL", 60))
        while True:
            await trio.sleep(interval)
            await self.periodic()

    def _system_policy(self) -> policy.SystemPolicy:
        def rule(name: str) -> tuple[str, ExprTree] | None:
            text = self.cfg.get(name)
            if not text:
                return None
            try:
                return name, ExprTree(text)
            except ValueError as e:
                log.warning("%s is not a valid expression (%s); ignored", name, e)
                return None

        return policy.SystemPolicy(
            rule("SYSTEM_PERIODIC_REMOVE"),
            rule("SYSTEM_PERIODIC_HOLD"),
            rule("SYSTEM_PERIODIC_RELEASE"),
        )


def _had_a_run(ad: ClassAd) -> bool:
    status = ad.get("JobStatus")
    if status in (JobStatus.RUNNING, JobStatus.SUSPENDED):
        return True
    return status in (JobStatus.REMOVED, JobStatus.HELD) and ad.get("RemoteHost") is not None
