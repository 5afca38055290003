"""condor_defrag's arithmetic and choices, as HTCondor's defrag.cpp makes them, apart from
the daemon's clock and its peers (so that its rules are tested on exact times).

- How many machines to drain at a poll: DEFRAG_DRAINING_MACHINES_PER_HOUR spread over
  the polls of DEFRAG_INTERVAL, the fraction that does not fit carried to one extra
  drain each hour (and each day), prorated when the hour (or day) begins mid-interval.
- Which: partitionable slots that are not draining and meet DEFRAG_REQUIREMENTS, best
  DEFRAG_RANK first (ties in random order), one per machine, skipping whole machines
  (DEFRAG_WHOLE_MACHINE_EXPR) and machines whose drain was cancelled this poll.
- When not at all: DEFRAG_MAX_CONCURRENT_DRAINING machines already draining, or
  DEFRAG_MAX_WHOLE_MACHINES whole ones already.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass

from condorx.classad import ClassAd, ExprTree, Value, eval_against

HOUR = 3600
DAY = 24 * HOUR
BASE_SLOT = "PartitionableSlot && Offline =!= True"


@dataclass(frozen=True)
class Rates:
    """DEFRAG_DRAINING_MACHINES_PER_HOUR as whole drains per poll, plus one more per hour
    and per day for what is left over (HTCondor's m_draining_per_poll*)."""

    per_hour: float
    per_poll: int
    per_poll_hour: int
    per_poll_day: int

    @classmethod
    def of(cls, per_hour: float, interval: int) -> Rates:
        rate = per_hour / 3600.0 * interval
        per_poll = max(0, math.floor(rate + 0.00001))
        error_per_hour = (rate - per_poll) / interval * 3600.0
        per_poll_hour = math.floor(error_per_hour + 0.00001)
        if per_hour < 0 or interval > HOUR:
            per_hour = 0.0
        error_per_day = (error_per_hour - per_poll_hour) * 24.0
        per_poll_day = math.floor(error_per_day + 0.5)
        if per_poll_day < 0 or interval > DAY:
            per_poll_day = 0
        return cls(per_hour, per_poll, per_poll_hour, per_poll_day)

    def to_drain(self, prev: int, now: int, interval: int) -> int:
        """How many to drain at the poll at `now`, the last one having been at `prev`
        (0 for the first)."""
        n = self.per_poll
        if prev:
            hour = now // HOUR * HOUR
            if hour != prev // HOUR * HOUR:
                n += prorate(self.per_poll_hour, now - hour, HOUR, interval)
            day = now // DAY * DAY
            if day != prev // DAY * DAY:
                n += prorate(self.per_poll_day, now - day, DAY, interval)
        return n


def prorate(n: int, elapsed: int, period: int, granularity: int) -> int:
    """`n` scaled to what is left of a period `elapsed` into it (plus one granule),
    rounded, never beyond `n` nor of the other sign."""
    frac = (period - elapsed) / period + granularity / period
    answer = math.floor(n * frac + 0.5)
    if (n > 0 and answer > n) or (n < 0 and answer < n):
        return n
    return 0 if answer * n < 0 else answer


def machine_of(slot_name: str) -> str:
    """A slot's machine: what follows its `@` (the whole name if it has none)."""
    return slot_name.partition("@")[2] or slot_name


def machines(slots: Iterable[ClassAd]) -> set[str]:
    return {machine_of(str(s.get("Name"))) for s in slots}


def ranked(slots: list[ClassAd], rank: ExprTree | None, rng: random.Random) -> list[ClassAd]:
    """The slots best DEFRAG_RANK first (evaluated against each slot; a rank that is not
    a number counts 0, as EvalFloat leaves it), ties in random order."""
    shuffled = list(slots)
    rng.shuffle(shuffled)
    if rank is None:
        return shuffled
    values = eval_against(rank, ClassAd(), shuffled)
    keyed = [
        (float(v) if isinstance(v, int | float) and not isinstance(v, bool | Value) else 0.0, i)
        for i, v in enumerate(values)
    ]
    keyed.sort(key=lambda kv: -kv[0])
    return [shuffled[i] for _, i in keyed]


@dataclass(frozen=True)
class Limits:
    max_draining: int = -1  # DEFRAG_MAX_CONCURRENT_DRAINING (-1: none)
    max_whole: int = -1  # DEFRAG_MAX_WHOLE_MACHINES (-1: none)


def why_not(n: int, per_hour: float, limits: Limits, draining: int, whole: int) -> str | None:
    """Why this poll drains nothing, in HTCondor's words; None when it may."""
    if n <= 0:
        return f"number to drain in this interval is calculated to be {n}"
    if math.ceil(per_hour) <= 0:
        return f"DEFRAG_DRAINING_MACHINES_PER_HOUR={per_hour:f}"
    if limits.max_draining == 0:
        return "DEFRAG_MAX_CONCURRENT_DRAINING=0"
    if limits.max_whole == 0:
        return "DEFRAG_MAX_WHOLE_MACHINES=0"
    if 0 <= limits.max_draining <= draining:
        return (
            f"DEFRAG_MAX_CONCURRENT_DRAINING={limits.max_draining} and there are"
            f" {draining} draining machines"
        )
    if 0 <= limits.max_whole <= whole:
        return f"DEFRAG_MAX_WHOLE_MACHINES={limits.max_whole} and there are {whole} whole machines"
    return None


def eligible(candidates: list[ClassAd], whole: set[str], cancelled: set[str]) -> list[ClassAd]:
    """The slots that may be drained, in the order given, one per machine: none of a
    whole machine, nor of one whose drain was cancelled this poll."""
    out: list[ClassAd] = []
    done: set[str] = set()
    for slot in candidates:
        machine = machine_of(str(slot.get("Name")))
        if machine in cancelled or machine in done or machine in whole:
            continue
        done.add(machine)
        out.append(slot)
    return out
