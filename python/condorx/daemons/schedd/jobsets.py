"""Job sets (USE_JOBSETS), as HTCondor's schedd keeps them (jobsets.cpp, qmgmt.cpp's
CreateNeededJobsets): a cluster whose ad names a JobSetName joins its owner's set of
that name (names compared without case), or starts one whose JobSetId is its own
cluster id; the cluster ad carries the JobSetId, which its jobs read through it.

A set lasts as long as it has jobs in the queue (HTCondor's only garbage policy,
immediateAfterEmpty), so its ad is made from the queue when asked for, never stored:
MyType "JobSet", JobSetId, JobSetName, Owner, User, RefCount (its jobs), and the live
counts HTCondor publishes with the prefix "Num" (NumJobs, NumIdle, NumRunning,
NumHeld, NumCompleted, NumRemoved, NumSuspended, and NumScheduler* for scheduler
universe jobs). condor_submit's SendJobQueueAd names a set explicitly
(`qmgmt.Qmgmt`); a cluster that names one is enough.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.schedd.queue import CLUSTER_AD, Transaction
from condorx.daemons.schedd.store import Key
from condorx.language.attrs import JobStatus, Universe

# The live counts by JobStatus, as LiveJobCounters::publish names them.
_COUNTED = {
    JobStatus.IDLE: "Idle",
    JobStatus.RUNNING: "Running",
    JobStatus.TRANSFERRING_OUTPUT: "Running",
    JobStatus.REMOVED: "Removed",
    JobStatus.COMPLETED: "Completed",
    JobStatus.HELD: "Held",
    JobStatus.SUSPENDED: "Suspended",
}
_JOB_COUNTS = ("Idle", "Running", "Removed", "Completed", "Held", "Suspended")
_SCHEDULER_COUNTS = ("Idle", "Running", "Removed", "Completed", "Held")


def join(txn: Transaction, cluster: int) -> None:
    """Put the new cluster in its owner's set of the JobSetName it names, if any."""
    ad = txn.cluster_ad(cluster)
    if ad is None:
        return
    name = ad.get("JobSetName")
    if not isinstance(name, str) or not name:
        if "JobSetId" in ad:  # the schedd's alone (HTCondor drops a submitted one)
            txn.delete_attr((cluster, CLUSTER_AD), "JobSetId")
        return
    owner = ad.get("Owner")
    for key, other in _clusters(txn):
        set_id = other.get("JobSetId")
        if key[0] == cluster or not isinstance(set_id, int) or isinstance(set_id, bool):
            continue
        same = str(other.get("JobSetName", "")).lower() == name.lower()
        if same and other.get("Owner") == owner:
            txn.set_attr((cluster, CLUSTER_AD), "JobSetId", set_id)
            return
    txn.set_attr((cluster, CLUSTER_AD), "JobSetId", cluster)


def _clusters(txn: Transaction) -> Iterator[tuple[Key, ClassAd]]:
    """The cluster ads the transaction sees: those it stages, then the queue's others."""
    staged = {k: ad for k, ad in txn.staged.items() if k[1] == CLUSTER_AD and ad is not None}
    yield from staged.items()
    for cluster, ad in txn.queue.clusters.items():
        if (cluster, CLUSTER_AD) not in txn.staged:
            yield (cluster, CLUSTER_AD), ad


def ads(jobs: Iterable[tuple[Key, ClassAd]]) -> list[ClassAd]:
    """Each set's ad, made from its jobs in the queue, in JobSetId order."""
    sets: dict[int, dict[str, Any]] = {}
    for _, job in jobs:
        set_id = job.get("JobSetId")
        if not isinstance(set_id, int) or isinstance(set_id, bool):
            continue
        ad = sets.get(set_id)
        if ad is None:
            ad = sets[set_id] = _empty(set_id, job)
        ad["RefCount"] += 1
        counted = _COUNTED.get(job.get("JobStatus"))  # type: ignore[call-overload]
        if counted is None:
            continue
        if job.get("JobUniverse") == Universe.SCHEDULER:
            if counted in _SCHEDULER_COUNTS:
                ad[f"NumScheduler{counted}"] += 1
                ad["NumSchedulerJobs"] += 1
        else:
            ad[f"Num{counted}"] += 1
            ad["NumJobs"] += 1
    return [ClassAd(sets[i]) for i in sorted(sets)]


def _empty(set_id: int, job: ClassAd) -> dict[str, Any]:
    ad: dict[str, Any] = {
        "MyType": "JobSet",
        "JobSetId": set_id,
        "JobSetName": job.get("JobSetName"),
        "Owner": job.get("Owner"),
        "User": job.get("User"),
        "RefCount": 0,
        "NumJobs": 0,
        "NumSchedulerJobs": 0,
    }
    ad.update({f"Num{n}": 0 for n in _JOB_COUNTS})
    ad.update({f"NumScheduler{n}": 0 for n in _SCHEDULER_COUNTS})
    return ad
