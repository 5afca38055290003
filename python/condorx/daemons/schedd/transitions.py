"""What happens to a job in the queue: hold, release, remove, edit, run, exit; each as a
transaction (how it enters the queue is `entry`'s).

Each function stages its changes in a Transaction and records the events that the user log
and the history file will show once the transaction is durable.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from condorx.classad import ClassAd, ExprTree, Value
from condorx.daemons.schedd import routing
from condorx.daemons.schedd.queue import EventKind, Transaction
from condorx.daemons.schedd.store import Key
from condorx.errors import Refusal, Refused
from condorx.language import cron
from condorx.language.attrs import PROTECTED, HoldCode, JobStatus, Universe
from condorx.transport import wire
from condorx.transport.protocol.run_result import RunResult


class QueueError(Refused):
    """A request the queue refuses; `kind` is the error reply's kind."""


class Outcome(enum.StrEnum):
    """What a job's run or exit came to (the `exited` reply's outcome)."""

    COMPLETED = "completed"  # it left the queue, or waits in it Completed
    REQUEUED = "requeued"  # back to Idle, to run again
    HELD = "held"
    REMOVED = "removed"  # removed while it ran; now it is gone
    GONE = "gone"  # it had left the queue already (condor_rm -forcex)
    UNCHANGED = "unchanged"  # it was not running: the report changed nothing

    @classmethod
    def of(cls, status: JobStatus) -> Outcome:
        """A job that was not running, as it stands."""
        known = {JobStatus.COMPLETED: cls.COMPLETED, JobStatus.HELD: cls.HELD}
        return known.get(status, cls.UNCHANGED)


def _next_cron_run(txn: Transaction, key: Key, now: int, ran: bool = False) -> None:
    """A cron job back in the queue waits for its schedule's next run, or is held (25).
    After a run (`ran`), the next is later than the one that ran, even when the job
    took less than a second and `now` is still that very minute."""
    ad = _job(txn, key)
    after = now
    last = ad.get("DeferralTime")
    if ran and isinstance(last, int) and not isinstance(last, bool):
        after = max(now, last + 1)
    run = txn.queue.deferral.next_cron_run(ad, after)
    if isinstance(run, int):
        txn.set_attr(key, "DeferralTime", run)
    elif run is not None:
        hold(txn, key, run, HoldCode.INVALID_CRON_SETTINGS, 0, now)


def set_status(txn: Transaction, key: Key, ad: ClassAd, status: JobStatus, now: int) -> None:
    """The one place a job's status changes; a routed job's partner follows it."""
    txn.set_attr(key, "LastJobStatus", int(JobStatus.of(ad)))
    txn.set_attr(key, "JobStatus", int(status))
    txn.set_attr(key, "EnteredCurrentStatus", now)
    for then in routing.on_status(txn, key, ad, status, now):
        _carry_out(txn, then, now)


def _carry_out(txn: Transaction, then: routing.Consequence, now: int) -> None:
    """What a routed job's status change asks of its partner."""
    if isinstance(then, routing.RemoveCopy):
        remove(txn, then.key, then.reason, now, by="router")
        return
    partner = txn.job(then.key)
    if partner is not None:
        set_status(txn, then.key, partner, then.status, now)
        if then.leave:
            leave_queue(txn, then.key, now)


_set_status = set_status


def hold(
    txn: Transaction, key: Key, reason: str, code: int, subcode: int, now: int, by: str = ""
) -> bool:
    ad = _job(txn, key)
    if JobStatus.of(ad) in (JobStatus.HELD, JobStatus.REMOVED, JobStatus.COMPLETED):
        return False
    _set_status(txn, key, ad, JobStatus.HELD, now)
    txn.set_attr(key, "HoldReason", reason)
    txn.set_attr(key, "HoldReasonCode", int(code))
    txn.set_attr(key, "HoldReasonSubCode", int(subcode))
    txn.set_attr(key, "NumHolds", int_or(ad.get("NumHolds"), 0) + 1)
    txn.event(EventKind.HOLD, key, reason=reason, code=int(code), subcode=int(subcode), by=by)
    return True


def release(txn: Transaction, key: Key, reason: str, now: int, by: str = "") -> bool:
    ad = _job(txn, key)
    if JobStatus.of(ad) != JobStatus.HELD:
        return False
    for name in ("HoldReason", "HoldReasonCode", "HoldReasonSubCode"):
        if name in ad:
            txn.set_attr(key, "Last" + name, ad[name])
            txn.delete_attr(key, name)
    _set_status(txn, key, ad, JobStatus.IDLE, now)
    txn.set_attr(key, "ReleaseReason", reason)
    txn.event(EventKind.RELEASE, key, reason=reason, by=by)
    _next_cron_run(txn, key, now)
    return True


def remove(txn: Transaction, key: Key, reason: str, now: int, by: str = "") -> bool:
    ad = _job(txn, key)
    status = JobStatus.of(ad)
    grid_job = ad.get("JobUniverse") == Universe.GRID
    if status == JobStatus.REMOVED:
        if grid_job:  # waiting for its remote job's removal; asked twice, it goes now
            leave_queue(txn, key, now)  # (HTCondor's condor_rm -forcex)
            return True
        return False
    if status == JobStatus.COMPLETED:
        # Done, and kept in the queue by LeaveJobInQueue: condor_rm lets it go.
        leave_queue(txn, key, now)
        return True
    # An original tied to a routed copy only mirrors its copy's Running: nothing of it
    # runs here to be stopped first. A grid job submitted to another pool stays (as
    # Removed) until the gridmanager has removed its remote job there.
    if grid_job:
        stays = "GridJobId" in ad
    else:
        stays = not routing.is_managed(ad) and status in (JobStatus.RUNNING, JobStatus.SUSPENDED)
    _set_status(txn, key, ad, JobStatus.REMOVED, now)
    txn.set_attr(key, "RemoveReason", reason)
    txn.event(EventKind.ABORT, key, reason=reason, by=by)
    # LeaveJobInQueue true (evaluated now that it is Removed) keeps it, in X, until that
    # turns false or condor_rm -forcex.
    if not stays and not _fires(_job(txn, key), "LeaveJobInQueue"):
        leave_queue(txn, key, now)
    return True


def force_remove(txn: Transaction, key: Key, now: int) -> bool:
    """condor_rm -forcex: a job already Removed (X) leaves the queue at once, whatever
    still holds it (LeaveJobInQueue, a run being stopped, a remote grid copy)."""
    if JobStatus.of(_job(txn, key)) != JobStatus.REMOVED:
        return False
    leave_queue(txn, key, now)
    return True


def destroy(txn: Transaction, key: Key, now: int) -> str:
    """DestroyProc of a queued job, as HTCondor's qmgmt does it: only a Completed or
    Removed job may leave ("bad-status" otherwise); one its LeaveJobInQueue keeps stays
    ("kept": HTCondor's DESTROYPROC_SUCCESS_DELAY); else it goes to the history now
    ("ok"), even a Removed one whose run is still being stopped."""
    ad = _job(txn, key)
    if JobStatus.of(ad) not in (JobStatus.COMPLETED, JobStatus.REMOVED):
        return "bad-status"
    if _fires(ad, "LeaveJobInQueue"):
        return "kept"
    leave_queue(txn, key, now)
    return "ok"


def _removed_done(txn: Transaction, key: Key, now: int) -> Outcome:
    """A removed job's run is over: it leaves, unless LeaveJobInQueue keeps it in X."""
    if not _fires(_job(txn, key), "LeaveJobInQueue"):
        leave_queue(txn, key, now)
    return Outcome.REMOVED


def leave_queue(txn: Transaction, key: Key, now: int) -> None:
    """The job is done with the queue: it goes to the history file."""
    txn.set_attr(key, "CompletionDate", int_or(_job(txn, key).get("CompletionDate"), 0) or now)
    txn.event(EventKind.LEAVE, key, ad=_job(txn, key).flatten())
    txn.delete_job(key)


def let_go(txn: Transaction, key: Key, now: int) -> bool:
    """A completed job leaves the queue, unless its LeaveJobInQueue is true (a job whose
    output its submitter still has to fetch from the spool, as for Condor-C); so does a
    removed job that LeaveJobInQueue kept in X, once it turns false (and nothing else
    holds the job: a run still being stopped, a remote grid copy)."""
    ad = txn.job(key)
    if ad is None or _fires(ad, "LeaveJobInQueue"):
        return False
    status = JobStatus.of(ad)
    if status == JobStatus.REMOVED:
        if "LeaveJobInQueue" not in ad or "RemoteHost" in ad or routing.is_managed(ad):
            return False
        if ad.get("JobUniverse") == Universe.GRID and "GridJobId" in ad:
            return False
    elif status != JobStatus.COMPLETED:
        return False
    leave_queue(txn, key, now)
    return True


def edit(txn: Transaction, key: Key, name: str, expr_text: str, evaluate: bool = False) -> None:
    """Set `name` to an expression, or (evaluate) to its value in the job (condor_prio +1)."""
    if name.lower() in PROTECTED:
        raise QueueError(Refusal.PERMISSION, f"{name} is set by the schedd and cannot be edited")
    try:
        value: Any = ExprTree(expr_text)
    except ValueError as e:
        raise QueueError(Refusal.BAD_REQUEST, f"attribute {name}: {e}") from None
    ad = _job(txn, key)
    if evaluate:
        value = value.eval(ad)
    txn.set_attr(key, name, value)


def unset(txn: Transaction, key: Key, name: str) -> None:
    """Take an attribute out of a job's own ad (DeleteAttribute): its cluster's value, if
    any, shows through again."""
    if name.lower() in PROTECTED:
        raise QueueError(Refusal.PERMISSION, f"{name} is set by the schedd and cannot be deleted")
    _job(txn, key)  # the job must be there
    txn.delete_attr(key, name)


def edit_cluster(txn: Transaction, cluster: int, name: str, expr_text: str) -> None:
    """Set `name` in a cluster's own ad (a job factory's: the jobs it makes later, and
    its limits, JobMaterializeLimit and JobMaterializeMaxIdle, read it there)."""
    if name.lower() in PROTECTED:
        raise QueueError(Refusal.PERMISSION, f"{name} is set by the schedd and cannot be edited")
    try:
        value = ExprTree(expr_text)
    except ValueError as e:
        raise QueueError(Refusal.BAD_REQUEST, f"attribute {name}: {e}") from None
    txn.set_attr((cluster, -1), name, value)


_SCHEDULE = frozenset(n.lower() for n in cron.ATTRIBUTES)


def edited(txn: Transaction, key: Key, names: Sequence[str], now: int) -> None:
    """After condor_qedit: an idle cron job whose schedule changed gets its next run
    under the new schedule at once, or is held (25) if the new one is invalid."""
    ad = _job(txn, key)
    if JobStatus.of(ad) == JobStatus.IDLE and not _SCHEDULE.isdisjoint(n.lower() for n in names):
        _next_cron_run(txn, key, now)


@dataclass(frozen=True)
class Exit:
    """How a job's process ended, as the starter reports it."""

    code: int | None = None
    signal: int | None = None


def exited(txn: Transaction, key: Key, how: Exit, now: int) -> Outcome:
    """Apply OnExitHold and OnExitRemove: held, completed or requeued."""
    ad = _job(txn, key)
    by_signal = how.signal is not None
    txn.set_attr(key, "ExitBySignal", by_signal)
    if by_signal:
        txn.set_attr(key, "ExitSignal", int(how.signal or 0))
    else:
        txn.set_attr(key, "ExitCode", int(how.code or 0))
    ad = _job(txn, key)
    if _fires(ad, "OnExitHold"):
        reason = policy_reason(ad, "OnExitHold")
        hold(txn, key, reason, HoldCode.JOB_POLICY, int_or(ad.get("OnExitHoldSubCode"), 0), now)
        return Outcome.HELD
    remove_it = ad.eval("OnExitRemove") if "OnExitRemove" in ad else True
    if remove_it is True or remove_it is Value.Undefined:
        _set_status(txn, key, ad, JobStatus.COMPLETED, now)
        txn.set_attr(key, "CompletionDate", now)
        txn.event(EventKind.TERMINATE, key, code=how.code, signal=how.signal)
        let_go(txn, key, now)
        return Outcome.COMPLETED
    _set_status(txn, key, ad, JobStatus.IDLE, now)
    _next_cron_run(txn, key, now, ran=True)
    return Outcome.REQUEUED


def _fires(ad: ClassAd, name: str) -> bool:
    return name in ad and ad.eval(name) is True


def policy_reason(ad: ClassAd, name: str) -> str:
    """Why a periodic expression `name` fired: its <name>Reason, else HTCondor's words."""
    custom = ad.get(name + "Reason")
    if custom is not None and not isinstance(custom, str):
        custom = ad.eval(name + "Reason")
    if isinstance(custom, str) and custom:
        return custom
    return f"The job attribute {name} expression '{_text(ad, name)}' evaluated to TRUE"


def _text(ad: ClassAd, name: str) -> str:
    v = ad.get(name)
    return str(v) if isinstance(v, ExprTree) else wire.value_to_wire_text(v)


def _job(txn: Transaction, key: Key) -> ClassAd:
    ad = txn.job(key)
    if ad is None:
        raise QueueError(Refusal.NOT_FOUND, f"job {key[0]}.{key[1]} not found")
    return ad


def int_or(v: Any, default: int) -> int:
    """`v` when it is an integer (not a boolean), else `default`."""
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def start_running(txn: Transaction, key: Key, slot: str, host: str, now: int) -> bool:
    """A claim is about to run the job: it is Running from now."""
    ad = _job(txn, key)
    if JobStatus.of(ad) != JobStatus.IDLE:
        return False
    _set_status(txn, key, ad, JobStatus.RUNNING, now)
    txn.set_attr(key, "JobCurrentStartDate", now)
    if not isinstance(ad.get("JobStartDate"), int):
        txn.set_attr(key, "JobStartDate", now)
    txn.set_attr(key, "RemoteHost", slot)
    txn.set_attr(key, "StartdIpAddr", host)  # where condor_tail finds the job's files
    txn.set_attr(key, "NumJobStarts", int_or(ad.get("NumJobStarts"), 0) + 1)
    txn.set_attr(key, "NumJobMatches", int_or(ad.get("NumJobMatches"), 0) + 1)
    txn.set_attr(key, "LastMatchTime", now)
    txn.event(EventKind.EXECUTE, key, host=host)
    return True


def finish_running(txn: Transaction, key: Key, run: RunResult, now: int) -> Outcome:
    """The startd's report of a job's run: record it, then apply the exit policy (or,
    for a job removed or held while it ran, finish that)."""
    ad = txn.job(key)
    if ad is None:  # removed with -forcex while it was being stopped
        return Outcome.GONE
    if run.wall is not None:
        total = ad.get("RemoteWallClockTime")
        before = total if isinstance(total, int | float) else 0
        txn.set_attr(key, "RemoteWallClockTime", before + run.wall)
    for name, value in run.attrs.items():
        txn.set_attr(key, name, value)
    _forget_host(txn, key, ad)
    status = JobStatus.of(ad)
    if status == JobStatus.REMOVED:
        return _removed_done(txn, key, now)
    if status not in (JobStatus.RUNNING, JobStatus.SUSPENDED):
        return Outcome.of(status)
    if run.missed is not None:
        _set_status(txn, key, ad, JobStatus.IDLE, now)
        hold(txn, key, run.missed.reason(), HoldCode.MISSED_DEFERRED_EXECUTION_TIME, 0, now)
        return Outcome.HELD
    if run.vacated:
        # Evicted from the machine (its policy, condor_vacate): back to Idle to run again.
        _set_status(txn, key, ad, JobStatus.IDLE, now)
        txn.set_attr(key, "LastVacateTime", now)
        txn.event(EventKind.EVICT, key, reason=run.vacated)
        _next_cron_run(txn, key, now)
        return Outcome.REQUEUED
    if run.failed:
        # The starter says which hold it is (a PREPARE_JOB hook's failure is 19, with
        # the hook's exit status as the subcode); else the job could not be started.
        code = run.hold_code if run.hold_code is not None else HoldCode.FAILED_TO_CREATE_PROCESS
        _set_status(txn, key, ad, JobStatus.IDLE, now)
        hold(txn, key, run.failed, int(code), run.hold_subcode, now)
        return Outcome.HELD
    how = Exit(code=run.attrs.get("ExitCode"), signal=run.attrs.get("ExitSignal"))
    return exited(txn, key, how, now)


def lose_running(txn: Transaction, key: Key, why: str, now: int) -> Outcome:
    """The job's startd is gone: a running job goes back to Idle to run elsewhere."""
    ad = txn.job(key)
    if ad is None:
        return Outcome.GONE
    status = JobStatus.of(ad)
    _forget_host(txn, key, ad)
    if status == JobStatus.REMOVED:
        return _removed_done(txn, key, now)
    if status in (JobStatus.RUNNING, JobStatus.SUSPENDED):
        _set_status(txn, key, ad, JobStatus.IDLE, now)
        txn.set_attr(key, "LastVacateTime", now)
        txn.event(EventKind.EVICT, key, reason=why)
        _next_cron_run(txn, key, now)
        return Outcome.REQUEUED
    return Outcome.of(status)


def _forget_host(txn: Transaction, key: Key, ad: ClassAd) -> None:
    """The run is over: RemoteHost becomes LastRemoteHost, as in HTCondor."""
    host = ad.get("RemoteHost")
    if isinstance(host, str):
        txn.set_attr(key, "LastRemoteHost", host)
    txn.delete_attr(key, "RemoteHost")


def suspend(txn: Transaction, key: Key, now: int) -> bool:
    """A running job was suspended on its slot (condor_suspend)."""
    ad = _job(txn, key)
    if JobStatus.of(ad) != JobStatus.RUNNING:
        return False
    _set_status(txn, key, ad, JobStatus.SUSPENDED, now)
    txn.set_attr(key, "LastSuspensionTime", now)
    txn.set_attr(key, "TotalSuspensions", int_or(ad.get("TotalSuspensions"), 0) + 1)
    txn.event(EventKind.SUSPEND, key)
    return True


def resume(txn: Transaction, key: Key, now: int) -> bool:
    """A suspended job goes on running (condor_continue)."""
    ad = _job(txn, key)
    if JobStatus.of(ad) != JobStatus.SUSPENDED:
        return False
    _set_status(txn, key, ad, JobStatus.RUNNING, now)
    txn.event(EventKind.UNSUSPEND, key)
    return True
