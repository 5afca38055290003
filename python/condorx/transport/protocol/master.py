"""The master's requests: condor_off, condor_on, condor_restart, condor_reconfig and
`condorx pool status`."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message, Reply

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Off(Message):
    """Stop daemons (all when none are named); with `master`, the master too."""

    command = "off"
    daemons: list[Any] | None = None
    master: bool = False
    fast: bool = False
    peaceful: bool = False


@record(frozen=True)
class On(Message):
    command = "on"
    daemons: list[Any] | None = None


@record(frozen=True)
class Restart(Message):
    command = "restart"
    daemons: list[Any] | None = None


@record(frozen=True)
class Reconfig(Message):
    command = "reconfig"


@record(frozen=True)
class Status(Message):
    command = "status"


@record(frozen=True)
class Stopped(Reply):
    stopped: list[Any]


@record(frozen=True)
class Started(Reply):
    started: list[Any]


@record(frozen=True)
class Restarted(Reply):
    restarted: list[Any]


@record(frozen=True)
class Reconfigured(Reply):
    daemons: list[Any]  # the DAEMON_LIST now in force


@record(frozen=True)
class MasterStatus(Reply):
    daemons: dict[str, Any]  # name -> {"pid", "restarts"}
