"""The gridmanager's rules for one remote schedd, with no I/O: from this queue's grid
jobs and the remote jobs this schedd submitted there (rows of ROWS), what one pass does
(a `Plan`): submit, adopt, mirror a status, hold, finish, detach, and remove or let go
remote jobs. The cases a crash or a race leaves behind are tested here directly
(tests/router/test_grid_plan.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.schedd.remote import Resource
from condorx.daemons.schedd.store import Key
from condorx.language.attrs import JobStatus

ACTIVE = (JobStatus.IDLE, JobStatus.RUNNING, JobStatus.SUSPENDED)
# What is read of each remote job.
ROWS = (
    "SubmitterGlobalJobId",
    "ClusterId",
    "ProcId",
    "JobStatus",
    "HoldReason",
    "ExitCode",
    "ExitBySignal",
    "ExitSignal",
    "RemoteWallClockTime",
    "RemoteUserCpu",
    "RemoteSysCpu",
)


@dataclass
class Plan:
    """What one pass does for one remote schedd."""

    submit: list[Key] = field(default_factory=list)
    adopt: dict[Key, str] = field(default_factory=dict)  # local job -> remote id
    mirror: dict[Key, JobStatus] = field(default_factory=dict)
    hold: dict[Key, str] = field(default_factory=dict)
    finish: dict[Key, list[Any]] = field(default_factory=dict)  # local job -> remote row
    detach: list[Key] = field(default_factory=list)  # held/removed here: forget the remote
    remove_remote: list[str] = field(default_factory=list)
    let_go_remote: list[str] = field(default_factory=list)


def of(
    jobs: list[tuple[Key, ClassAd]], found: dict[str, list[list[Any]]], resource: Resource
) -> Plan:
    plan = Plan()
    for key, ad in jobs:
        rows = found.pop(str(ad.get("GlobalJobId")), [])
        status = JobStatus.of(ad)
        if status not in ACTIVE:
            _clean(plan, rows)  # held, removed or done here: nothing of it runs there
            if "GridJobId" in ad or status == JobStatus.REMOVED:
                plan.detach.append(key)
            continue
        row, stale = _current(ad, rows)
        _clean(plan, stale)
        if row is None:
            if "GridJobId" in ad:
                plan.hold[key] = f"the job is no longer in the queue of {resource.schedd}"
            else:
                plan.submit.append(key)
            continue
        if "GridJobId" not in ad:
            plan.adopt[key] = rid(row)
        _follow(plan, key, ad, row, resource)
    for rows in found.values():  # remote jobs whose local job is gone
        _clean(plan, rows)
    return plan


def _current(ad: ClassAd, rows: list[list[Any]]) -> tuple[list[Any] | None, list[list[Any]]]:
    """The remote job that is the local job's now, and the rest (an earlier remote job
    of a job released since, still leaving that queue)."""
    grid_id = ad.get("GridJobId")
    if isinstance(grid_id, str):
        wanted = grid_id.split()[-1]
        mine = [r for r in rows if rid(r) == wanted]
    else:  # not recorded yet: a live remote job of it is adopted (a held or removed
        # one is what an earlier hold here left: it goes)
        live = (JobStatus.IDLE, JobStatus.RUNNING, JobStatus.SUSPENDED, JobStatus.COMPLETED)
        mine = [r for r in rows if r[3] in live][:1]
    return (mine[0] if mine else None), [r for r in rows if r not in mine]


def _clean(plan: Plan, rows: list[list[Any]]) -> None:
    """Remote jobs no local job wants: removed, or (done already) let go."""
    for row in rows:
        done = row[3] in (JobStatus.COMPLETED, JobStatus.REMOVED)
        (plan.let_go_remote if done else plan.remove_remote).append(rid(row))


def rid(row: list[Any]) -> str:
    """A remote job's id, from its row."""
    return f"{row[1]}.{row[2]}"


def _follow(plan: Plan, key: Key, ad: ClassAd, row: list[Any], resource: Resource) -> None:
    """The local job follows its remote job's status."""
    remote_status = row[3]
    if remote_status in (JobStatus.IDLE, JobStatus.RUNNING, JobStatus.SUSPENDED):
        if JobStatus.of(ad) != remote_status:
            plan.mirror[key] = JobStatus(remote_status)
    elif remote_status == JobStatus.COMPLETED:
        plan.finish[key] = row
    elif remote_status == JobStatus.HELD:
        why = row[4] if isinstance(row[4], str) else "no reason given"
        plan.hold[key] = f"the job was held by {resource.schedd}: {why}"
    elif remote_status == JobStatus.REMOVED:
        plan.hold[key] = f"the job was removed from the queue of {resource.schedd}"
