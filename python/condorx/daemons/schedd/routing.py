"""The queue's side of the job router (Job Router manual, "Routing Mechanism"): an original job
tied to its routed copy, each change of one carried to the other in the same
transaction, so a router killed at any moment leaves nothing half done.

- `route` makes the copy (a new job id) and ties the original to it: the original gets
  Managed = "External", ManagedManager = "JobRouter" and RoutedToJobId; the copy
  RoutedFromJobId, RouteName and RoutedBy. A managed original is not matched by the
  negotiator and evaluates no periodic expressions; its copy does both.
- While the copy is idle, running or suspended, the original shows the same status.
- The copy completes: the original takes its final status (exit code, times) and leaves
  the queue as completed.
- The copy is removed: the original is untied and Idle again, free to match or to be
  routed anew.
- The original is removed or put on hold: its copy is removed.
"""

from __future__ import annotations

from dataclasses import dataclass

from condorx.classad import ClassAd
from condorx.daemons.schedd.queue import EventKind, Transaction
from condorx.daemons.schedd.store import Key, job_id, parse_job_id
from condorx.language.attrs import JobStatus

MANAGER = "JobRouter"
# What the original takes from its completed copy.
FINAL = (
    "ExitCode",
    "ExitBySignal",
    "ExitSignal",
    "ExitStatus",
    "RemoteWallClockTime",
    "RemoteUserCpu",
    "RemoteSysCpu",
    "CompletionDate",
    "JobCurrentStartDate",
    "JobStartDate",
    "NumJobStarts",
)


def is_managed(ad: ClassAd) -> bool:
    """Tied to a routed copy: not matched, no periodic expressions."""
    return ad.get("Managed") == "External"


def tie(txn: Transaction, original: Key, copy: Key, route: str, now: int) -> None:
    """Mark the original as managed by its copy, and the copy as routed from it."""
    txn.set_attr(original, "Managed", "External")
    txn.set_attr(original, "ManagedManager", MANAGER)
    txn.set_attr(original, "RoutedToJobId", job_id(copy))
    txn.set_attr(original, "RouteName", route)
    txn.set_attr(copy, "RoutedFromJobId", job_id(original))
    txn.set_attr(copy, "RouteName", route)
    txn.set_attr(copy, "RoutedBy", "jobrouter")
    txn.set_attr(copy, "RoutedTime", now)


def untie(txn: Transaction, original: Key) -> None:
    ad = txn.job(original)
    if ad is None:
        return
    for name in ("Managed", "ManagedManager", "RoutedToJobId"):
        if name in ad:
            txn.delete_attr(original, name)
    txn.set_attr(original, "Managed", "ScheddDone")


@dataclass(frozen=True)
class Follow:
    """The partner takes this status (and leaves the queue, with `leave`)."""

    key: Key
    status: JobStatus
    leave: bool = False


@dataclass(frozen=True)
class RemoveCopy:
    key: Key
    reason: str


# What a status change asks of the partner job; `transitions` carries it out, so this
# module decides and never calls back into the queue's transitions.
Consequence = Follow | RemoveCopy


def on_status(
    txn: Transaction, key: Key, ad: ClassAd, status: JobStatus, now: int
) -> list[Consequence]:
    """What a status change of a copy means for its original, or of an original for its
    copy."""
    source = parse_job_id(ad.get("RoutedFromJobId"))
    if source is not None:
        return _copy_changed(txn, key, source, status, now)
    if is_managed(ad) and status in (JobStatus.HELD, JobStatus.REMOVED):
        return _original_stopped(txn, key, ad, status)
    return []


def _copy_changed(
    txn: Transaction, copy: Key, original: Key, status: JobStatus, now: int
) -> list[Consequence]:
    orig = txn.job(original)
    if orig is None or orig.get("RoutedToJobId") != job_id(copy):
        return []  # untied already (the original was removed or held)
    was = JobStatus.of(orig)
    if status in (JobStatus.IDLE, JobStatus.RUNNING, JobStatus.SUSPENDED):
        return [Follow(original, status)] if was != status else []
    if status == JobStatus.COMPLETED:
        done = txn.job(copy)
        for name in FINAL:
            if done is not None and name in done:
                txn.set_attr(original, name, done[name])
        code, sig = (done.get("ExitCode"), done.get("ExitSignal")) if done else (None, None)
        txn.event(EventKind.TERMINATE, original, code=code, signal=sig)
        return [Follow(original, JobStatus.COMPLETED, leave=True)]
    if status not in (JobStatus.HELD, JobStatus.REMOVED):
        return []
    running = was in (JobStatus.RUNNING, JobStatus.SUSPENDED)
    if status == JobStatus.REMOVED:
        untie(txn, original)
        txn.set_attr(original, "LastRouteRemoved", now)
    # Held or removed: nothing of the original runs while its copy does not.
    return [Follow(original, JobStatus.IDLE)] if running else []


def _tied(copy: ClassAd, original: Key, original_ad: ClassAd) -> bool:
    """The copy really is this original's (both ways, and the same owner's)."""
    return copy.get("RoutedFromJobId") == job_id(original) and copy.get("Owner") == original_ad.get(
        "Owner"
    )


def _original_stopped(
    txn: Transaction, original: Key, ad: ClassAd, status: JobStatus
) -> list[Consequence]:
    copy = parse_job_id(ad.get("RoutedToJobId"))
    untie(txn, original)
    verb = "held" if status == JobStatus.HELD else "removed"
    partner = txn.job(copy) if copy is not None else None
    if copy is not None and partner is not None and _tied(partner, original, ad):
        return [RemoveCopy(copy, f"the original job {job_id(original)} was {verb}")]
    return []
