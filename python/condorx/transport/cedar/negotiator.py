"""The negotiator's CEDAR commands: `htcondor2.Negotiator`'s calls, served by the
negotiator's accountant through condorx's own GetPriorities and EditUser.

GET_PRIORITY (and its rollup) answers with one ad (without MyType and TargetType) whose
attributes are numbered per user (Name1, Priority1, ...), as HTCondor's accountant
reports its state. The edits carry the user, and a value where they take one; nothing
is answered.
"""

from __future__ import annotations

from typing import Any

from condorx.classad import ClassAd
from condorx.transport.cedar.face import Call, CedarCommand
from condorx.transport.protocol.negotiator import EditUser, GetPriorities

GET_PRIORITY = 451
GET_PRIORITY_ROLLUP = 514
GET_RESLIST = 463
# command -> (condorx's edit, the type of its value: float, int or none)
EDITS: dict[int, tuple[str, type | None]] = {
    449: ("priority", float),  # SET_PRIORITY
    459: ("factor", float),  # SET_PRIORITYFACTOR
    494: ("accumulated", float),  # SET_ACCUMUSAGE
    495: ("begin", int),  # SET_BEGINTIME
    496: ("last", int),  # SET_LASTTIME
    458: ("reset", None),  # RESET_USAGE
    482: ("delete", None),  # DELETE_USER
    460: ("resetall", None),  # RESET_ALL_USAGE
}
# Each record's attributes as HTCondor's accountant names them, from condorx's.
_ATTRS = {
    "Name": "Name",
    "Priority": "RealPriority",
    "PriorityFactor": "PriorityFactor",
    "ResourcesUsed": "ResourcesUsed",
    "WeightedResourcesUsed": "ResourcesUsed",
    "AccumulatedUsage": "WeightedAccumulatedUsage",
    "WeightedAccumulatedUsage": "WeightedAccumulatedUsage",
    "BeginUsageTime": "BeginUsageTime",
    "LastUsageTime": "LastUsageTime",
    # A group's record, in a pool with accounting groups: its quota and demand.
    "EffectiveQuota": "EffectiveQuota",
    "ConfigQuota": "ConfigQuota",
    "SubtreeQuota": "SubtreeQuota",
    "GroupSortKey": "GroupSortKey",
    "SurplusPolicy": "SurplusPolicy",
    "Requested": "Requested",
}


def _report(users: list[Any], last_update: float) -> ClassAd:
    ad = ClassAd({"LastUpdate": int(last_update), "NumSubmittors": len(users)})
    for i, user in enumerate(users, 1):
        if not isinstance(user, dict):
            continue
        for theirs, ours in _ATTRS.items():
            if user.get(ours) is not None:
                ad[f"{theirs}{i}"] = user[ours]
        # Whether the record is a group's, and the group it is in (a group's: its
        # parent's); without groups, every user is in the root, `<none>`.
        ad[f"IsAccountingGroup{i}"] = bool(user.get("IsAccountingGroup", False))
        ad[f"AccountingGroup{i}"] = str(user.get("AccountingGroup") or "<none>")
    return ad


async def _priorities(call: Call) -> bool:
    reply = await call.dispatch(GetPriorities())
    if reply.get("ok"):
        ad = _report(reply.get("users") or [], float(reply.get("last_update") or 0))
        # The pool's concurrency limits, as HTCondor's accountant adds them to its report.
        for name, count in (reply.get("limits") or {}).items():
            if isinstance(name, str) and isinstance(count, int | float):
                ad[name] = float(count)
    else:
        ad = ClassAd()
    await call.send(call.writer().classad(ad, types=False))
    return False


async def _resources(call: Call) -> bool:
    """GET_RESLIST: the slots a user holds. condorx's accountant keeps only totals, so
    the list is empty."""
    (await call.payload()).text()
    await call.send(call.writer().classad(ClassAd(), types=False))
    return False


async def _edit(call: Call) -> bool:
    action, kind = EDITS[call.command]
    value: float | None = None
    user = ""
    if action != "resetall":
        msg = await call.payload()
        user = msg.text()
        if kind is float:
            value = msg.double()
        elif kind is int:
            value = float(msg.integer())
    await call.dispatch(EditUser(action=action, user=user, value=value))
    return False


def commands() -> list[CedarCommand]:
    out = [
        CedarCommand(GET_PRIORITY, "READ", _priorities),
        CedarCommand(GET_PRIORITY_ROLLUP, "READ", _priorities),
        CedarCommand(GET_RESLIST, "READ", _resources),
    ]
    out += [CedarCommand(n, "ADMINISTRATOR", _edit, forced=True) for n in EDITS]
    return out
