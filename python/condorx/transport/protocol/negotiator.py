"""The negotiator's requests."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message, Reply

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Reschedule(Message):
    """Negotiate now (a schedd has new idle jobs), not at the next NEGOTIATOR_INTERVAL."""

    command = "reschedule"


@record(frozen=True)
class GetPriorities(Message):
    """Every user's accounting record (condor_userprio)."""

    command = "get_priorities"


@record(frozen=True)
class Priorities(Reply):
    # Each a map: Name, Priority (effective), RealPriority, PriorityFactor, ResourcesUsed,
    # WeightedAccumulatedUsage (slot-seconds), BeginUsageTime, LastUsageTime.
    users: list[Any]
    last_update: float  # when the priorities were last brought up to date
    # The concurrency limits' counts, as ConcurrencyLimit_<name> (a dot written `_`).
    limits: dict[str, Any] | None = None


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


@record(frozen=True)
class EditUser(Message):
    """condor_userprio -setprio, -setfactor, -setaccum, -setbegin, -setlast, -resetusage,
    -delete or -resetall (`action`, one of EDITS) for `user`."""

    command = "edit_user"
    action: str
    user: str = ""
    value: float | None = None
