"""A real queue for a simulated pool: the job ads of a `condor_q -l` (or
`condor_history -l`) dump, made into submissions that keep each job as it was (its
owner, accounting group, priority, requirements, requests and policy expressions), so
the simulated pool drains the queue the real one had.

Every job the dump shows waiting or running comes back idle, and held jobs held. A
completed job comes back idle to run again for as long as it ran
(`RemoteWallClockTime`, as its `SimDuration`, unless it has one): a history replays
with its real durations. Removed jobs, and jobs of universes that never run on an
execute machine (scheduler, local, grid), are left out. What described the job's moment
in the real queue (where it ran, its counters, its autocluster) is dropped, and so is
what would reach this machine's files: its user log, and its files' transfer (a
simulated job reads and writes none). The schedd stamps the rest of its bookkeeping anew.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

from condorx.classad import ClassAd
from condorx.language.attrs import PROTECTED, JobStatus, Universe
from condorx.sim import ad_dump
from condorx.sim.ad_dump import DumpError
from condorx.transport import wire

_SKIPPED_UNIVERSES = (Universe.SCHEDULER, Universe.LOCAL, Universe.GRID)
_TAKEN = {JobStatus.IDLE, JobStatus.RUNNING, JobStatus.TRANSFERRING_OUTPUT, JobStatus.SUSPENDED}
# The moment in the real queue, and what would write this machine's files.
_MOMENT = frozenset(
    n.lower()
    for n in (
        "RemoteHost LastRemoteHost RemoteSlotID JobStartDate JobCurrentStartDate "
        "JobCurrentStartExecutingDate JobCurrentStartTransferOutputDate JobLastStartDate "
        "ShadowBday NumJobStarts NumShadowStarts JobRunCount NumRestarts NumShadowExceptions "
        "RemoteWallClockTime CumulativeRemoteUserCpu CumulativeRemoteSysCpu "
        "RemoteUserCpu RemoteSysCpu CumulativeSlotTime CommittedTime CommittedSlotTime "
        "CommittedSuspensionTime LastMatchTime NumJobMatches LastRejMatchTime "
        "LastRejMatchReason AutoClusterId AutoClusterAttrs ServerTime StartdPrincipal "
        "StartdIpAddr ClaimId PublicClaimId LastJobLeaseRenewal LastSuspensionTime "
        "CumulativeSuspensionTime TotalSuspensions UserLog DAGManNodesLog "
        "LastPublicClaimId OrigMaxHosts JobCurrentReconnectAttempt TotalJobReconnectAttempts "
        "ExitBySignal ExitCode ExitStatus CompletionDate JobFinishedHookDone "
        "LastHoldReason LastHoldReasonCode LastHoldReasonSubCode LastReleaseReason "
        "ReleaseReason RemoveReason LastVacateTime ActivationDuration ActivationSetupDuration "
        "ActivationExecutionDuration ActivationTeardownDuration CurrentHosts "
        "BlockReads BlockWrites BlockReadKbytes BlockWriteKbytes StatsLifetimeStarter"
    ).split()
)
# MachineAttr*, MATCH_* and MATCH_EXP_*: what the slot of its last match said; Recent*:
# statistics of its last run.
_MOMENT_PREFIXES = ("machineattr", "match_", "lastremote", "remote", "recent", "transfer_queue")


@dataclasses.dataclass
class Cluster:
    """One submission: a dumped cluster's jobs of one owner."""

    owner: str
    cluster: dict[str, Any]  # what its jobs share, on the wire
    procs: list[dict[str, Any]]  # what each has of its own
    dumped_id: Any  # the ClusterId the dump gave it


@dataclasses.dataclass
class Queue:
    clusters: list[Cluster]
    skipped: Counter[str]  # why a job was left out -> how many

    @property
    def jobs(self) -> int:
        return sum(len(c.procs) for c in self.clusters)

    @property
    def owners(self) -> set[str]:
        return {c.owner for c in self.clusters}


def load(path: Path) -> Queue:
    ads = ad_dump.read(path)
    groups: dict[tuple[Any, str], list[dict[str, Any]]] = {}
    skipped: Counter[str] = Counter()
    for n, ad in enumerate(ads, 1):
        if ad.get("MyType") not in (None, "Job"):
            skipped["not a job ad"] += 1
            continue
        why = _left_out(ad)
        if why:
            skipped[why] += 1
            continue
        owner = ad.get("Owner")
        if not isinstance(owner, str) or not owner:
            raise DumpError(f"{path}, ad {n}: Owner is not a string")
        key = (ad.get("ClusterId"), owner)
        groups.setdefault(key, []).append(_attrs(ad))
    clusters = [_cluster(owner, dumped, jobs) for (dumped, owner), jobs in groups.items()]
    return Queue(clusters, skipped)


def _left_out(ad: ClassAd) -> str:
    status = ad.get("JobStatus", JobStatus.IDLE)  # an ad without one is submitted idle
    if status == JobStatus.REMOVED:
        return "removed"
    if status not in _TAKEN and status not in (JobStatus.HELD, JobStatus.COMPLETED):
        return "an unknown JobStatus"
    if ad.get("JobUniverse") in _SKIPPED_UNIVERSES:
        return "scheduler, local or grid universe"
    return ""


def _attrs(ad: ClassAd) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ad.get("JobStatus") == JobStatus.COMPLETED and "SimDuration" not in ad:
        wall = ad.get("RemoteWallClockTime")
        if isinstance(wall, int | float) and not isinstance(wall, bool) and wall >= 0:
            out["SimDuration"] = float(wall)
    for name in ad.keys():
        low = name.lower()
        if low in _MOMENT or low.startswith(_MOMENT_PREFIXES):
            continue
        if low in PROTECTED and low != "jobstatus":
            continue
        out[name] = wire.value_to_wire(ad[name])
    # Its files stay where they were: a simulated job reads none and writes none.
    out["ShouldTransferFiles"] = "NO"
    held = out.get("JobStatus") == JobStatus.HELD
    out["JobStatus"] = int(JobStatus.HELD if held else JobStatus.IDLE)
    return out


def _cluster(owner: str, dumped: Any, jobs: list[dict[str, Any]]) -> Cluster:
    """The attributes every job has alike go in the cluster ad; the rest stay each job's."""
    first = jobs[0]
    shared = {k: v for k, v in first.items() if all(j.get(k, _NONE) == v for j in jobs[1:])}
    procs = [{k: v for k, v in j.items() if k not in shared} for j in jobs]
    return Cluster(owner, {**shared, "Owner": owner}, procs, dumped)


_NONE = object()
