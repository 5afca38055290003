"""CronTab schedules (HTCondor's cron_minute ... cron_day_of_week), computed in the Rust
core: check a schedule and list its next run times.

    >>> from condorx.language.cron import CronSpec, next_runs
    >>> spec = CronSpec.from_text("*/15 9-17 * * 1-5")      # minute hour dom month dow
    >>> next_runs(spec, after=1_700_000_000, n=3, tz="UTC")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from condorx._core import (
    ClassAd,
    CronError,
    cron_check,
    cron_next_run_each,
    cron_next_runs,
    cron_recompute,
    deferral_on_arrival,
)

__all__ = [
    "ATTRIBUTES",
    "CronError",
    "CronSpec",
    "due_clause",
    "ready_clause",
    "next_run_each",
    "next_runs",
    "parse",
    "recompute",
    "deferral_on_arrival",
]

# The job attributes of the five fields, in crontab order.
ATTRIBUTES = ("CronMinute", "CronHour", "CronDayOfMonth", "CronMonth", "CronDayOfWeek")


def ready_clause(interval: int, now: str = "time()", prep: str = "CronPrepTime") -> str:
    """The ClassAd clause that holds once a deferred job may be sent to a machine: from
    the schedd's last look at its queue (every SCHEDD_INTERVAL) before its prep time,
    `(CurrentTime + SCHEDD_INTERVAL) >= (DeferralTime - CronPrepTime)` (manual: Time
    Scheduling for Job Execution). `now` is the clock's expression; tests fix it."""
    return f"(({now} + {interval}) >= (DeferralTime - {prep}))"


def due_clause(schedd_interval: int, now: str = "time()") -> str:
    """The clause that holds for a job that may be sent to a machine now: any job but a
    cron job, and a cron job once it is ready (`ready_clause`; with no CronPrepTime, 0).
    The negotiator offers only such jobs, and a claim is reused only for such a job."""
    not_cron = " && ".join(f"{a} =?= undefined" for a in ATTRIBUTES)
    prep = "ifThenElse(CronPrepTime =?= undefined, 0, CronPrepTime)"
    ready = ready_clause(schedd_interval, now, prep)
    return f"(({not_cron}) || DeferralTime =?= undefined || {ready})"


@dataclass(frozen=True)
class CronSpec:
    minute: str = "*"
    hour: str = "*"
    day_of_month: str = "*"
    month: str = "*"
    day_of_week: str = "*"

    @classmethod
    def from_text(cls, text: str) -> CronSpec:
        """`"m h dom mon dow"`, as in a crontab line (missing trailing fields are `*`)."""
        words = text.split()
        if not 1 <= len(words) <= 5:
            raise CronError(f"a schedule has one to five fields, not {len(words)}: {text!r}")
        return cls(*words)

    @classmethod
    def from_ad(cls, ad: Mapping[str, Any] | ClassAd) -> CronSpec | None:
        """The job's schedule, or None when it sets none of the Cron* attributes."""
        values = [ad.get(name) for name in ATTRIBUTES]
        if all(v is None for v in values):
            return None
        return cls(*(str(v) if v is not None else "*" for v in values))

    def fields(self) -> tuple[str, str, str, str, str]:
        # Not dataclasses.astuple: it deep-copies, and costs more than the whole next-run
        # calculation in the core.
        return (self.minute, self.hour, self.day_of_month, self.month, self.day_of_week)

    def __str__(self) -> str:
        return " ".join(self.fields())


def parse(spec: CronSpec | str) -> CronSpec:
    """The schedule (a CronSpec, or crontab text `"*/15 9-17 * * 1-5"`), checked: raises
    CronError naming the bad field and why."""
    if isinstance(spec, str):
        spec = CronSpec.from_text(spec)
    cron_check(spec.fields())
    return spec


def next_runs(spec: CronSpec | str, after: int, n: int = 1, tz: str | None = None) -> list[int]:
    """The next `n` run times (Unix seconds) after `after`, in `tz` (None: local zone);
    fewer when the schedule runs out."""
    if isinstance(spec, str):
        spec = CronSpec.from_text(spec)
    if n < 0:
        raise ValueError(f"the number of run times cannot be negative: {n}")
    return cron_next_runs(spec.fields(), after, n, tz)


def next_run_each(specs: list[CronSpec], after: int, tz: str | None = None) -> list[int | None]:
    """The next run time of each schedule (None for one that never runs)."""
    return cron_next_run_each([s.fields() for s in specs], after, tz)


def recompute(
    ads: list[ClassAd], now: int, zone: str | None
) -> tuple[list[tuple[int, int]], list[int]]:
    """Each idle cron job's next run after `now`, in one pass through the core: (index,
    new DeferralTime) for each ad whose time moves, and the indexes of invalid schedules.
    A run due no more than CronWindow seconds ago is kept."""
    return cron_recompute(ads, now, zone)
