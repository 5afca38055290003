"""The negotiation cycle: which idle job goes to which slot, shared fairly among users.

    >>> from condorx.negotiation import Submitter, negotiate
    >>> cycle = negotiate(slots, [Submitter("alice", 500.0, alice_jobs)])
    >>> for m in cycle.matches: print(m.job["ClusterId"], m.slot["Name"])

The cycle itself runs in Rust with the GIL released (`condorx._core.negotiate`): jobs are
grouped into autoclusters, the pool is divided in pie slices by 1 / effective priority,
and each cluster takes the free slots its Rank likes best. Jobs left unmatched get
`LastRejMatchReason` and `LastRejMatchTime`, as HTCondor's negotiator sets them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from condorx import _core
from condorx._core import Accountant
from condorx.classad import ClassAd

__all__ = ["Accountant", "Cycle", "Match", "Rejection", "Submitter", "negotiate"]


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


@dataclass
class Rejection:
    submitter: Submitter
    job: ClassAd
    reason: str


@dataclass
class Cycle:
    matches: list[Match]
    rejections: list[Rejection]
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
) -> Cycle:
    """Run one negotiation cycle over `slots` for `submitters` (see the module doc).

    The keywords are the negotiator's settings of the same names (NEGOTIATOR_PRE_JOB_RANK,
    NEGOTIATOR_CONSIDER_PREEMPTION, PREEMPTION_REQUIREMENTS, ...); `priorities` gives the
    effective priority of the users running on claimed slots."""
    start = time.perf_counter()
    rows = [(s.name, s.priority, s.jobs) for s in submitters]
    matches, rejections, clusters, pairs, phases = _core.negotiate(
        slots,
        rows,
        pre_job_rank=pre_job_rank,
        post_job_rank=post_job_rank,
        consider_preemption=consider_preemption,
        preemption_requirements=preemption_requirements,
        preemption_rank=preemption_rank,
        priorities=priorities,
    )
    handed_back = time.perf_counter()
    stamp = int(time.time() if now is None else now)
    rejected = [
        Rejection(submitters[s], submitters[s].jobs[j], reason) for s, j, reason in rejections
    ]
    # Stamped in one call (a cycle may reject a million jobs); each ad once, should the
    # same ClassAd object have been queued twice.
    once = list({id(r.job): r for r in rejected}.values())
    _core.stamp_rejections([r.job for r in once], [r.reason for r in once], stamp)
    matched = [
        Match(submitters[s], submitters[s].jobs[j], slots[k], rank, preempts, dynamic)
        for s, j, k, rank, preempts, dynamic in matches
    ]
    end = time.perf_counter()
    return Cycle(
        matches=matched,
        rejections=rejected,
        clusters=clusters,
        pairs_evaluated=pairs,
        seconds=end - start,
        phases={**dict(phases), "results to python": end - handed_back},
    )
