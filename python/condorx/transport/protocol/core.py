"""Commands every daemon answers, whatever it is (HTCondor's DaemonCore commands)."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message, Reply


@record(frozen=True)
class Ping(Message):
    """May the asker do `what` (a permission level, or one of the daemon's commands)?
    condor_ping's question (HTCondor's DC_SEC_QUERY): the answer comes after the peer has
    authenticated, so it also says who the daemon takes the peer to be, and how."""

    command = "ping"
    what: str


@record(frozen=True)
class Pinged(Reply):
    authorized: bool
    user: str  # who the daemon takes the asker to be
    method: str  # how the asker authenticated: unix, token or anonymous
    protection: str  # what the connection's frames get: clear, integrity or encrypted
    permission: str  # the level `what` needs
