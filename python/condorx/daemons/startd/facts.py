"""What a slot's policy expressions and clocks say now, each worked out when the state
machine first asks for it.

A slot's state reads only a few of the facts: Claimed/Busy asks WANT_SUSPEND and
PREEMPT, Unclaimed asks IS_OWNER and RunBenchmarks. HTCondor's startd likewise evaluates
per state only the expressions that state's transitions name. Every slot settles at every
poll (20,000 a second at 100,000 simulated slots), so evaluating all a dozen expressions
for each was most of the poll's cost.
"""

from __future__ import annotations

from typing import Protocol

from condorx.classad import ClassAd
from condorx.daemons.startd.backfill import BackfillClient
from condorx.daemons.startd.draining import Drain
from condorx.daemons.startd.policy import SlotView
from condorx.daemons.startd.slots import Claim, Slot
from condorx.daemons.startd.states import State
from condorx.daemons.startd.table import SlotTable


class Driver(Protocol):
    """What the facts read of the policy driver (`driver.Driver`)."""

    table: SlotTable
    stopping: str
    match_timeout: int
    backfill: BackfillClient
    draining: Drain | None

    def now(self) -> float: ...
    def worklife_over(self, claim: Claim | None, ad: SlotView) -> bool: ...


class PolicyFacts:
    """The facts of `states.Facts` for one slot at one moment. The slot must not change
    while they are read: a transition makes new facts."""

    __slots__ = ("_driver", "_slot", "_ad", "_job", "_busy")

    def __init__(self, driver: Driver, slot: Slot, ad: SlotView) -> None:
        self._driver = driver
        self._slot = slot
        self._ad = ad
        claim = slot.claim
        self._job: ClassAd | None = claim.job if claim is not None else None
        self._busy = slot.state in (State.CLAIMED, State.PREEMPTING) and self._job is not None

    def _holds(self, name: str, job: ClassAd | None = None) -> bool:
        return self._driver.table.policy.holds(name, self._ad, job)

    @property
    def is_owner(self) -> bool:
        return self._holds("IS_OWNER")

    @property
    def start_false(self) -> bool:
        """START evaluates to FALSE without a job (not UNDEFINED)."""
        return self._driver.table.policy.is_false("START", self._ad)

    @property
    def run_benchmarks(self) -> bool:
        return self._slot.state == State.UNCLAIMED and self._holds("RunBenchmarks")

    @property
    def want_suspend(self) -> bool:
        return self._busy and self._holds("WANT_SUSPEND", self._job)

    @property
    def suspend(self) -> bool:
        return self._busy and self._holds("SUSPEND", self._job)

    @property
    def resume(self) -> bool:
        """CONTINUE."""
        return self._busy and self._holds("CONTINUE", self._job)

    @property
    def preempt(self) -> bool:
        return self._busy and self._holds("PREEMPT", self._job)

    @property
    def want_vacate(self) -> bool:
        job = self._job
        return not self._slot.flags.fast and (job is None or self._holds("WANT_VACATE", job))

    @property
    def kill(self) -> bool:
        return self._slot.flags.fast or (self._busy and self._holds("KILL", self._job))

    @property
    def retirement_over(self) -> bool:
        """The job has run (less suspension) MaxJobRetirementTime."""
        flags, driver = self._slot.flags, self._driver
        if flags.fast or flags.no_retirement:
            return True
        if not self._busy or driver.stopping == "peaceful":
            return False
        run_time = self._slot.totals(driver.now()).get("TotalJobRunTime", 0)
        return bool(run_time >= driver.table.policy.retirement_time(self._ad, self._job))

    @property
    def match_expired(self) -> bool:
        """MATCH_TIMEOUT has passed since the match."""
        claim, driver = self._slot.claim, self._driver
        return (
            claim is not None
            and not claim.claimed
            and driver.now() >= claim.matched_at + driver.match_timeout
        )

    @property
    def worklife_over(self) -> bool:
        """CLAIM_WORKLIFE has passed since the claim."""
        return self._driver.worklife_over(self._slot.claim, self._ad)

    @property
    def backfill_enabled(self) -> bool:
        return self._driver.backfill.enabled

    @property
    def start_backfill(self) -> bool:
        driver = self._driver
        return (
            self._slot.state in (State.UNCLAIMED, State.BACKFILL)
            and not driver.backfill.killed_for  # a new client once the dying one is gone
            and not driver.stopping  # a startd shutting down starts none (it would wait on it)
            and self._holds("START_BACKFILL")
        )

    @property
    def evict_backfill(self) -> bool:
        return self._slot.state == State.BACKFILL and self._holds("EVICT_BACKFILL")

    @property
    def draining(self) -> bool:
        """condor_drain: the slot takes no new work."""
        return self._driver.draining is not None
