"""The negotiator's requests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from condorx.transport.protocol.message import Message, Reply


@dataclass(frozen=True)
class Reschedule(Message):
    """Negotiate now (a schedd has new idle jobs), not at the next NEGOTIATOR_INTERVAL."""

    command = "reschedule"


@dataclass(frozen=True)
class GetPriorities(Message):
    """Every user's accounting record (condor_userprio)."""

    command = "get_priorities"


@dataclass(frozen=True)
class Priorities(Reply):
    # Each a map: Name, Priority (effective), RealPriority, PriorityFactor, ResourcesUsed,
    # WeightedAccumulatedUsage (slot-seconds), BeginUsageTime, LastUsageTime.
    users: list[Any]
    last_update: float  # when the priorities were last brought up to date


# condor_userprio's edits: the value each takes, if any.
EDITS = {
    "priority": True,
    "factor": True,
    "accumulated": True,
    "begin": True,
    "last": True,
    "reset": False,
    "delete": False,
    "resetall": False,
}


@dataclass(frozen=True)
class EditUser(Message):
    """condor_userprio -setprio, -setfactor, -setaccum, -setbegin, -setlast, -resetusage,
    -delete or -resetall (`action`, one of EDITS) for `user`."""

    command = "edit_user"
    action: str
    user: str = ""
    value: float | None = None
