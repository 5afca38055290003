"""Periodic job policy: PeriodicRemove, PeriodicHold, PeriodicRelease and their SYSTEM_ forms.

Evaluated every PERIODIC_EXPR_INTERVAL seconds, in HTCondor's order: remove first, then
hold, then release. A job held by condor_hold (HoldReasonCode 1) is not released by
PeriodicRelease, as the manual says for `periodic_release`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.schedd import routing
from condorx.daemons.schedd import transitions as t
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.store import Key
from condorx.language.attrs import HoldCode, JobStatus

_ACTIVE = (JobStatus.IDLE, JobStatus.RUNNING, JobStatus.SUSPENDED)


@dataclass(frozen=True)
class SystemPolicy:
    """SYSTEM_PERIODIC_* from the configuration: (macro name, expression) or None."""

    remove: tuple[str, ExprTree] | None = None
    hold: tuple[str, ExprTree] | None = None
    release: tuple[str, ExprTree] | None = None


def evaluate(
    txn: Transaction, jobs: Iterable[tuple[Key, ClassAd]], now: int, system: SystemPolicy
) -> list[Key]:
    """Apply the periodic expressions to every job; returns the jobs they changed."""
    changed = []
    for key, ad in jobs:
        if txn.job(key) is not None and _one(txn, key, ad, now, system):
            changed.append(key)
    return changed


def _one(txn: Transaction, key: Key, ad: ClassAd, now: int, system: SystemPolicy) -> int:
    status = JobStatus.of(ad)
    if status in (JobStatus.COMPLETED, JobStatus.REMOVED):
        return int(t.let_go(txn, key, now))  # its LeaveJobInQueue may have turned false
    if routing.is_managed(ad):
        return 0  # a routed original: its copy evaluates the periodic expressions
    if _user(ad, "PeriodicRemove"):
        return int(t.remove(txn, key, t.policy_reason(ad, "PeriodicRemove"), now, by="policy"))
    if _system(ad, system.remove):
        return int(t.remove(txn, key, _sys_reason(system.remove), now, by="policy"))
    if status in _ACTIVE:
        if _user(ad, "PeriodicHold"):
            sub = t.int_or(ad.get("PeriodicHoldSubCode"), 0)
            reason = t.policy_reason(ad, "PeriodicHold")
            return int(t.hold(txn, key, reason, HoldCode.JOB_POLICY, sub, now, by="policy"))
        if _system(ad, system.hold):
            reason = _sys_reason(system.hold)
            return int(t.hold(txn, key, reason, HoldCode.SYSTEM_POLICY, 0, now, by="policy"))
    if status == JobStatus.HELD and ad.get("HoldReasonCode") != HoldCode.USER_REQUEST:
        if _user(ad, "PeriodicRelease"):
            reason = t.policy_reason(ad, "PeriodicRelease")
            return int(t.release(txn, key, reason, now, by="policy"))
        if _system(ad, system.release):
            return int(t.release(txn, key, _sys_reason(system.release), now, by="policy"))
    return 0


def _user(ad: ClassAd, name: str) -> bool:
    v = ad.get(name)
    if v is None or v is False:  # the common case, decided without evaluating
        return False
    return ad.eval(name) is True


def _system(ad: ClassAd, rule: tuple[str, ExprTree] | None) -> bool:
    return rule is not None and rule[1].eval(ad) is True


def _sys_reason(rule: tuple[str, ExprTree] | None) -> str:
    assert rule is not None
    return f"The system macro {rule[0]} expression '{rule[1]}' evaluated to TRUE"
