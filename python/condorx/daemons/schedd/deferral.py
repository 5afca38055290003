"""The schedd's side of job deferral and CronTab scheduling.

- A DeferralTime written as an expression (`CurrentTime + 60`) stays one: the execute
  machine evaluates it when the job arrives there, against its own clock (deferral manual).
- A job with a prep time is not matched until that many seconds before its DeferralTime:
  the schedd appends the clause to Requirements, whoever submitted the job (deferral manual: "the
  next execution time for a job [is] in an expression appended to the job's Requirements").
- A cron job's DeferralTime is its schedule's next run after now (rounded up to the
  minute), in the zone CRON_TIME_ZONE names (the schedd machine's own when unset); it is
  computed when the job enters the queue, is requeued or released, and for every idle
  cron job at once when the schedd starts (a restart, or condor_reconfig, which restarts it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.schedd.store import Key
from condorx.language import cron
from condorx.language.attrs import HoldCode, JobStatus
from condorx.transport import wire

_ANY_INTERVAL = 982_451_653  # a stand-in interval, to find a clause whatever its interval


@dataclass(frozen=True)
class _Prep:
    """The clause a prep-time attribute adds to Requirements, for a SCHEDD_INTERVAL."""

    clause: Callable[[int], str]

    @cached_property
    def _written(self) -> re.Pattern[str]:
        text = re.escape(self.clause(_ANY_INTERVAL))
        return re.compile(text.replace(str(_ANY_INTERVAL), r"\d+"))

    def is_in(self, requirements: str) -> bool:
        """Whether `requirements` has the clause already, with any interval (a requeued
        or resubmitted ad, perhaps from a schedd with another SCHEDD_INTERVAL)."""
        return self._written.search(requirements) is not None


# The prep-time attribute of each kind of deferred job, and the clause that delays its
# match (a cron job's is the one the negotiator applies too: `cron.ready_clause`).
_PREP = {
    "DeferralPrepTime": _Prep(lambda interval: "((time() + DeferralPrepTime) >= DeferralTime)"),
    "CronPrepTime": _Prep(cron.ready_clause),
}


# The names whose values decide what `on_entry` sets (lower case, as ClassAds compare them).
ENTRY_NAMES = frozenset(
    n.lower() for n in ("DeferralTime", "Requirements", *_PREP, *cron.ATTRIBUTES)
)


@dataclass(frozen=True)
class Rules:
    """A schedd's deferral settings: the zone cron schedules are read in
    (CRON_TIME_ZONE; None: this machine's) and how often it looks at its queue
    (SCHEDD_INTERVAL), which the prep clause names."""

    zone: str | None = None
    interval: int = 300

    def on_entry(self, ad: ClassAd, now: int) -> dict[str, Any]:
        """Settle a job's deferral as it enters the queue, in `ad` (a cluster ad, or a
        proc's view chained to its cluster); returns what it set. The prep clause joins
        Requirements, and a cron job gets its next run, or is held with code 25 when its
        schedule is invalid."""
        changes: dict[str, Any] = {}
        clause = self.prep_requirements(ad)
        if clause is not None:
            ad["Requirements"] = ExprTree(clause.text)
            changes["Requirements"] = clause
        run = self.next_cron_run(ad, now)
        if isinstance(run, int):
            changes["DeferralTime"] = run
        elif run is not None:
            changes.update(
                JobStatus=int(JobStatus.HELD),
                HoldReason=run,
                HoldReasonCode=int(HoldCode.INVALID_CRON_SETTINGS),
                HoldReasonSubCode=0,
                NumHolds=1,
            )
        for name, value in changes.items():
            if name != "Requirements":
                ad[name] = value
        return changes

    def prep_requirements(self, job: ClassAd) -> wire.Expr | None:
        """The job's Requirements with its prep-time clause appended, or None when it has
        no prep time or the clause is already there (a requeued or resubmitted ad)."""
        name = next((n for n in _PREP if job.get(n) is not None), None)
        if name is None:
            return None
        prep = _PREP[name]
        clause = prep.clause(self.interval)
        current = job.get("Requirements")
        text = str(current) if current is not None else "true"
        if prep.is_in(text):
            return None
        return wire.Expr(f"({text}) && {clause}" if current is not None else clause)

    def next_cron_run(self, ad: ClassAd, now: int) -> int | str | None:
        """A cron job's next run after `now`; why not, when its schedule is invalid or
        never runs; None for a job with no schedule."""
        spec = cron.CronSpec.from_ad(ad)
        if spec is None:
            return None
        try:
            runs = cron.next_runs(cron.parse(spec), now, 1, self.zone)
        except cron.CronError as e:
            return f"Invalid cron settings: {e}"
        if not runs:
            return f"Invalid cron settings: the schedule {spec} never runs"
        return runs[0]

    def recompute(
        self, jobs: Sequence[tuple[Key, ClassAd]], now: int
    ) -> tuple[dict[Key, int], dict[Key, str]]:
        """Every idle cron job's next run after `now`, in one pass through the core: the
        new DeferralTime of each job whose time changes, and why for each job whose
        schedule is invalid or never runs. A run due no more than CronWindow seconds ago
        is kept, so a restart within a job's window does not skip its run."""
        ads = [ad for _, ad in jobs]
        moved, bad = cron.recompute(ads, now, self.zone)
        changed = {jobs[i][0]: t for i, t in moved}
        invalid: dict[Key, str] = {}
        for i in bad:
            why = self.next_cron_run(ads[i], now)
            invalid[jobs[i][0]] = why if isinstance(why, str) else "Invalid cron settings"
        return changed, invalid
