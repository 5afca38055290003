"""The negotiation cycle: which idle job goes to which slot, shared fairly among users.

    >>> from condorx.language.negotiation import Submitter, negotiate
    >>> cycle = negotiate(slots, [Submitter("alice", 500.0, alice_jobs)])
    >>> for m in cycle.matches: print(m.job["ClusterId"], m.slot["Name"])

The cycle itself runs in Rust with the GIL released (`condorx._core.negotiate`): jobs are
grouped into autoclusters, the pool is divided in pie slices by 1 / effective priority,
and each cluster takes the free slots its Rank likes best. Jobs left unmatched get
`LastRejMatchReason` and `LastRejMatchTime`, as HTCondor's negotiator sets them.
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from condorx import _core
from condorx._core import Accountant, ConcurrencyLimits, Groups
from condorx.classad import ClassAd, ExprTree

__all__ = [
    "Accountant",
    "ConcurrencyLimits",
    "Cycle",
    "Groups",
    "Match",
    "Rejection",
    "Rejections",
    "Submitter",
    "TimeLimits",
    "negotiate",
]


@dataclass
class Submitter:
    """A user's idle jobs and effective priority (lower is better)."""

    name: str
    priority: float
    jobs: list[ClassAd] = field(default_factory=list)


@dataclass
class Match:
    submitter: Submitter
    job: ClassAd
    slot: ClassAd
    rank: float
    #: "rank" or "priority" when the slot is claimed and this match preempts its job.
    preempts: str | None = None
    #: The dynamic slot carved for the job when `slot` is partitionable.
    dynamic_slot: ClassAd | None = None
    #: The job's concurrency limits on the slot, lowercased (MatchedConcurrencyLimits).
    limits: str | None = None


@dataclass(frozen=True)
class TimeLimits:
    """NEGOTIATOR_MAX_TIME_PER_SUBMITTER, _PER_SCHEDD, _PER_CYCLE (what is left of it
    when matching begins) and _PER_PIESPIN, in seconds; `schedd` names each submitter's
    schedd and `spent` the seconds it has used already (its schedd's answer), both keyed
    by the Submitter's id(), as the negotiator keeps its submitters' homes."""

    per_submitter: float = 60.0
    per_schedd: float = 120.0
    per_cycle: float = 1200.0
    per_spin: float = 120.0
    schedd: dict[int, str] = field(default_factory=dict)  # by id() of the Submitter
    spent: dict[int, float] = field(default_factory=dict)

    def row(
        self, submitters: list[Submitter]
    ) -> tuple[float, float, float, float, list[int], list[float]]:
        index: dict[str, int] = {}
        schedd_of = [
            index.setdefault(self.schedd.get(id(s), f"#{i}"), len(index))
            for i, s in enumerate(submitters)
        ]
        spent = [self.spent.get(id(s), 0.0) for s in submitters]
        return (
            self.per_submitter,
            self.per_schedd,
            self.per_cycle,
            self.per_spin,
            schedd_of,
            spent,
        )


@dataclass
class Rejection:
    submitter: Submitter
    job: ClassAd
    reason: str


class Rejections(Sequence[Rejection]):
    """The cycle's rejected jobs, made into `Rejection`s only when looked at: a cycle over
    a big queue rejects a million jobs, mostly whole clusters at a time, and building a
    million objects would take longer than the cycle."""

    def __init__(self, submitters: list[Submitter], rows: list[tuple[int, str, list[int]]]) -> None:
        self._submitters = submitters
        self._rows = rows
        self._starts = list(itertools.accumulate((len(jobs) for _, _, jobs in rows), initial=0))

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, i: int) -> Rejection: ...
    @overload
    def __getitem__(self, i: slice) -> list[Rejection]: ...
    def __getitem__(self, i: int | slice) -> Rejection | list[Rejection]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("rejection index out of range")
        row = bisect.bisect_right(self._starts, i) - 1
        s, reason, jobs = self._rows[row]
        sub = self._submitters[s]
        return Rejection(sub, sub.jobs[jobs[i - self._starts[row]]], reason)

    def __iter__(self) -> Iterator[Rejection]:
        for s, reason, jobs in self._rows:
            sub = self._submitters[s]
            for j in jobs:
                yield Rejection(sub, sub.jobs[j], reason)

    def __repr__(self) -> str:
        return f"<{len(self)} rejections>"

    def by_reason(self) -> dict[str, int]:
        """How many jobs each reason left waiting, most first."""
        counts: dict[str, int] = {}
        for _, reason, jobs in self._rows:
            counts[reason] = counts.get(reason, 0) + len(jobs)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def distinct(self, reasons: Callable[[str], bool]) -> Iterator[Rejection]:
        """Each rejected job ad once (a group's many jobs are one ad, repeated), of the
        rows whose reason `reasons` picks: what a negotiator's log tells of a cycle."""
        for s, reason, jobs in self._rows:
            if not reasons(reason):
                continue
            sub, seen, last = self._submitters[s], set(), None
            for j in jobs:
                job = sub.jobs[j]
                if job is last:  # a group's jobs come one after another: the quick test
                    continue
                last = job
                if id(job) not in seen:
                    seen.add(id(job))
                    yield Rejection(sub, job, reason)


@dataclass
class Cycle:
    matches: list[Match]
    rejections: Rejections
    clusters: int
    pairs_evaluated: int
    seconds: float
    #: Wall seconds per phase of the cycle, in order ("autoclusters", "matching", ...).
    phases: dict[str, float] = field(default_factory=dict)


def negotiate(
    slots: list[ClassAd],
    submitters: list[Submitter],
    *,
    pre_job_rank: str | None = None,
    post_job_rank: str | None = None,
    consider_preemption: bool = True,
    preemption_requirements: str | None = None,
    preemption_rank: str | None = None,
    priorities: dict[str, float] | None = None,
    now: float | None = None,
    exhaustive: bool = False,
    groups: Groups | None = None,
    pool_size: float = 0.0,
    usage: dict[str, float] | None = None,
    limits: ConcurrencyLimits | None = None,
    time_limits: TimeLimits | None = None,
    slot_weights: bool = True,
) -> Cycle:
    """Run one negotiation cycle over `slots` for `submitters` (see the module doc).

    The keywords are the negotiator's settings of the same names (NEGOTIATOR_PRE_JOB_RANK,
    NEGOTIATOR_CONSIDER_PREEMPTION, PREEMPTION_REQUIREMENTS, ...); `priorities` gives the
    effective priority of the users running on claimed slots. `exhaustive` evaluates every
    free slot for every cluster, as a plain negotiator does, instead of walking the pool's
    shared rankings: the same matches, slower (for checking and for benchmarks).

    With `groups` (GROUP_NAMES and its knobs), the pool is shared by accounting group under
    hierarchical quotas, as HTCondor's negotiator shares it: `pool_size` is the pool's size
    in (weighted) slots, claimed ones included, and `usage` what each submitter
    (`group.user@domain`) holds now. What each group got is kept in `groups`
    (`groups.last_shares()`).

    With `limits` (the pool's concurrency limits, holding what the running jobs use), a
    job is matched only while each of its limits has room; the counts after the cycle
    are kept there (`limits.counts()`).

    With `time_limits`, the negotiator's NEGOTIATOR_MAX_TIME_PER_* limits hold: a
    submitter out of time (its own, its schedd's, the cycle's) is passed over, its
    jobs left waiting with the limit named.

    With `slot_weights` (NEGOTIATOR_USE_SLOT_WEIGHTS), the pie is shared in slot weights:
    a slot weighs its SlotWeight, and a match on a partitionable slot costs the drop in
    its weight; without, each slot weighs 1 (a partitionable one its cpus left)."""
    start = time.perf_counter()
    rows = [
        (s.name, s.priority, s.jobs if isinstance(s.jobs, list) else list(s.jobs))
        for s in submitters
    ]
    stamp = int(time.time() if now is None else now)
    matches, rejections, clusters, pairs, phases = _core.negotiate(
        slots,
        rows,
        pre_job_rank=pre_job_rank,
        post_job_rank=post_job_rank,
        consider_preemption=consider_preemption,
        preemption_requirements=preemption_requirements,
        preemption_rank=preemption_rank,
        priorities=priorities,
        stamp_time=stamp,
        exhaustive=exhaustive,
        groups=groups,
        pool_size=pool_size,
        usage=usage,
        limits=limits,
        time_limits=None if time_limits is None else time_limits.row(submitters),
        slot_weights=slot_weights,
    )
    handed_back = time.perf_counter()
    matched = [
        Match(submitters[s], submitters[s].jobs[j], slots[k], rank, preempts, dynamic, lim)
        for s, j, k, rank, preempts, dynamic, lim in matches
    ]
    end = time.perf_counter()
    return Cycle(
        matches=matched,
        rejections=Rejections(submitters, rejections),
        clusters=clusters,
        pairs_evaluated=pairs,
        seconds=end - start,
        phases={**dict(phases), "results to python": end - handed_back},
    )


def pool_policies(slots: list[ClassAd]) -> list[ClassAd]:
    """A few ads holding every distinct expression the slots write (what a schedd needs
    to group its jobs as these slots would tell them apart)."""
    return _core.pool_policies(slots)


def waiting_groups(
    jobs: list[ClassAd],
    skip: list[bool],
    constraint: ExprTree | None,
    pool: list[ClassAd],
    apart: list[str],
) -> list[list[int]]:
    """Of `jobs`, those not marked in `skip` for which `constraint` is true, grouped as
    `_core.autoclusters` groups them, with jobs that write any of `apart` differently kept
    apart: a schedd's answer to its negotiator, in one pass in the core."""
    return _core.waiting_groups(jobs, skip, constraint, pool, apart)
