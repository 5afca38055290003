"""How jobs enter the queue: a submission's cluster and procs (or a job factory's
cluster, whose procs come later), each stamped as HTCondor's schedd stamps it (owner,
times, ids), its deferral settled (`deferral.Rules.on_entry`), its submit event recorded;
a grid job whose resource cannot be reached is held at once.

Each function stages its changes in a Transaction, as `transitions` does for what happens
to a job once it is in the queue.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.schedd import deferral, grid, transitions
from condorx.daemons.schedd.queue import EventKind, Transaction
from condorx.daemons.schedd.store import Key
from condorx.daemons.schedd.submission import Submission
from condorx.language.attrs import PROTECTED, HoldCode, JobStatus, Universe
from condorx.transport import wire


@dataclass(frozen=True)
class Submitter:
    owner: str
    uid_domain: str
    schedd_name: str


def submit(
    txn: Transaction,
    who: Submitter,
    sub: Submission,
    now: int,
    cluster: int | None = None,
    held: tuple[str, int] | None = None,
) -> int:
    """Add one cluster of `sub`'s procs (under a reserved id, or a new one); its id.
    `held`: the jobs are queued held, for this reason and code.

    `sub` is not changed: a change may be staged more than once (see `ledger`)."""
    cluster_ad = sub.cluster.copy()
    if cluster is None:
        cluster = txn.new_cluster()
    if held is not None:
        cluster_ad["JobStatus"] = int(JobStatus.HELD)
    _stamp_cluster(cluster_ad, cluster, who, now, held)
    cluster_ad["TotalSubmitProcs"] = len(sub.procs)
    txn.queue.deferral.on_entry(cluster_ad, now)
    txn.put_cluster(cluster, cluster_ad)
    for proc, p in enumerate(sub.procs):
        add_proc(txn, who, (cluster, proc), cluster_ad, dict(p.own), p.ad, now)
    return cluster


def submit_factory(
    txn: Transaction,
    who: Submitter,
    cluster_ad: ClassAd,
    factory: dict[str, Any],
    now: int,
    cluster: int | None = None,
) -> int:
    """Add a cluster whose jobs a factory makes as their turn comes (late
    materialization): its cluster ad, with `factory`'s attributes (how many procs, how
    many at once, where its rows are), and no proc yet; its id."""
    cluster_ad = cluster_ad.copy()
    if cluster is None:
        cluster = txn.new_cluster()
    _stamp_cluster(cluster_ad, cluster, who, now)
    for name, value in factory.items():
        cluster_ad[name] = value
    cluster_ad["JobMaterializeNextProcId"] = 0
    txn.queue.deferral.on_entry(cluster_ad, now)
    txn.put_cluster(cluster, cluster_ad)
    return cluster


@functools.lru_cache(maxsize=1024)
def _sets_deferral(names: tuple[str, ...]) -> bool:
    """Whether a proc setting these attributes has a deferral of its own (a cluster's
    procs mostly set the same few names: asked once for 100,000 of them)."""
    return not deferral.ENTRY_NAMES.isdisjoint(n.lower() for n in names)


def add_proc(
    txn: Transaction,
    who: Submitter,
    key: Key,
    cluster_ad: ClassAd,
    own: dict[str, Any],
    ad: ClassAd,
    now: int,
) -> None:
    """Stage one new proc: `own` its row (a wire map, changed here), `ad` the same decoded."""
    cluster, proc = key
    if _sets_deferral(tuple(own)):
        ad = _own_deferral(txn, own, ad, cluster_ad, now)  # its own schedule or time
    own["ProcId"] = ad["ProcId"] = proc
    own["GlobalJobId"] = ad["GlobalJobId"] = f"{who.schedd_name}#{cluster}.{proc}#{now}"
    # The row is exactly this map: no need to read it back out of the ad.
    txn.put_job(key, ad, wire.dumps(own))
    txn.event(EventKind.SUBMIT, key)
    if cluster_ad.get("JobUniverse") == Universe.GRID:
        probe = ad.copy()
        probe.chain(cluster_ad)  # the proc as it will read, its cluster's included
        why = grid.cannot_run(probe)
        if why is not None and transitions.hold(txn, key, why, 0, 0, now):
            return
    if own.get("JobStatus", cluster_ad.get("JobStatus")) == JobStatus.HELD:
        held = own if "HoldReason" in own else cluster_ad
        txn.event(
            EventKind.HOLD,
            key,
            reason=str(held.get("HoldReason") or "submitted on hold"),
            code=int(held.get("HoldReasonCode") or HoldCode.SUBMITTED_ON_HOLD),
            subcode=0,
        )


def _own_deferral(
    txn: Transaction, own: dict[str, Any], ad: ClassAd, cluster_ad: ClassAd, now: int
) -> ClassAd:
    """A proc's own deferral settled: in `own` (its row) and in a copy of its ad."""
    view = ad.copy()
    view.chain(cluster_ad)
    changes = txn.queue.deferral.on_entry(view, now)
    own.update(changes)
    ad = ad.copy()
    for name, value in changes.items():
        ad[name] = ExprTree(value.text) if isinstance(value, wire.Expr) else value
    return ad


def _stamp_cluster(
    ad: ClassAd, cluster: int, who: Submitter, now: int, held: tuple[str, int] | None = None
) -> None:
    """The attributes the schedd owns, whatever the client sent."""
    for name in ad.own_keys():
        if name.lower() in PROTECTED and name.lower() not in _CLIENT_MAY_SET:
            del ad[name]
    ad["ClusterId"] = cluster
    ad["ProcId"] = -1  # each proc sets its own; the cluster ad's shows no real proc
    ad["Owner"] = who.owner
    ad["User"] = f"{who.owner}@{who.uid_domain}"
    ad["QDate"] = now
    ad["EnteredCurrentStatus"] = now
    ad["MyType"] = "Job"
    ad["TargetType"] = "Machine"
    ad["NumJobMatches"] = 0
    ad["NumHolds"] = 0
    status = ad.get("JobStatus", JobStatus.IDLE)
    if status not in (JobStatus.IDLE, JobStatus.HELD):
        status = JobStatus.IDLE
    ad["JobStatus"] = int(status)
    if status == JobStatus.HELD:
        reason, code = held or ("submitted on hold", int(HoldCode.SUBMITTED_ON_HOLD))
        ad["HoldReason"] = reason
        ad["HoldReasonCode"] = code
        ad["HoldReasonSubCode"] = 0
        ad["NumHolds"] = 1


# The submit side may ask for a job to start held (`hold = true`).
_CLIENT_MAY_SET = {"jobstatus"}
