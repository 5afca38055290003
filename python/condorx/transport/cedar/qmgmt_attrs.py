"""The attributes a queue-management client (HTCondor's submit code, its bindings) sends,
checked one by one, and made into the schedd's own requests."""

from __future__ import annotations

from typing import Any

from condorx import _core
from condorx.transport import wire


def check_present(name: str, value: str) -> str | None:
    return None if name and value else f"attribute {name!r}: no value"


def check(name: str, value: str) -> str | None:
    """Why `name = value` cannot be set, or None."""
    if not name or not value:
        return f"attribute {name!r}: no value"
    try:
        _core.cedar_get_ad([f"{name} = {value}"])
    except ValueError as e:
        return f"attribute {name}: {e}"
    return None


# What HTCondor's submit code sends but the schedd decides (condorx's schedd refuses a
# submission that sets them): when the job was queued, and what kind of ad it is.
_SCHEDD_SETS = frozenset(
    n.lower()
    for n in ("QDate", "EnteredCurrentStatus", "MyType", "TargetType", "GlobalJobId", "User")
)


def own(attrs: dict[str, str], cluster: int, proc: int = -1) -> dict[str, str]:
    """The attributes a submission may carry: the ids must be the ones handed out, and
    an undefined Owner (the bindings send one) is the authenticated user's."""
    out = {}
    for name, value in attrs.items():
        lower = name.lower()
        if lower in ("clusterid", "procid"):
            want = cluster if lower == "clusterid" else proc
            if value.strip() != str(want):
                raise ValueError(f"{name} = {value}: this job is {cluster}.{max(proc, 0)}")
        elif lower == "owner" and value.strip().lower() == "undefined":
            continue
        elif lower not in _SCHEDD_SETS:
            out[name] = value
    return out


def ad_to_wire(attrs: dict[str, str]) -> dict[str, Any]:
    ad = _core.cedar_get_ad([f"{name} = {value}" for name, value in attrs.items()])
    return wire.ad_to_wire(ad)


def fields(request: Any) -> dict[str, Any]:
    """A request's fields as a map (a Transact carries Submits and Edits so)."""
    frame = dict(request.to_wire())
    frame.pop("cmd", None)
    return frame


def job_id(cluster: int, proc: int) -> str:
    return f"{cluster}.{proc}" if proc >= 0 else str(cluster)


HOLD_ATTRS = ("HoldReason", "HoldReasonCode", "HoldReasonSubCode")
SPOOLING_INPUT = "16"  # HoldReasonCode: HTCondor's submit code holds spool=True jobs so


def awaits_files(*ads: dict[str, str]) -> bool:
    """Whether a submission's jobs (its cluster ad and procs' attributes) wait for input
    files spooled later."""
    return any(attrs.get("HoldReasonCode", "").strip() == SPOOLING_INPUT for attrs in ads)
