"""The exception hierarchy: the exceptions defined in the Rust core, re-exported, and the
one kind of error that carries a kind.

Every condorx error is a `CondorxError` (ClassAd parse errors too). A `Refused` says what
kind of refusal it is, as an error reply does (bad-request, not-found, permission, busy,
spool, authentication, internal): the server turns one raised by a handler into that
reply, and a client raises the reply as `wire.RemoteError`, a `Refused` too.
"""

from enum import StrEnum

from condorx._core import ClassAdParseError, CondorxError


class Refusal(StrEnum):
    """Why a daemon refuses a request: the `kind` of its error reply."""

    BAD_REQUEST = "bad-request"  # malformed, or asks for what cannot be
    NOT_FOUND = "not-found"  # no such job, slot, claim or cluster
    PERMISSION = "permission"  # not the peer's to ask
    BUSY = "busy"  # not now: the slot or job is in use, the daemon is stopping
    BAD_STATUS = "bad-status"  # the job's status does not allow it
    SPOOL = "spool"  # its files cannot be kept
    STARTER = "starter"  # the run was cut off
    NOT_SUPPORTED = "not-supported"  # this daemon does not do that
    DRAIN = "drain"  # condor_drain's refusals, with HTCondor's code
    LIMIT = "limit"  # a schedd's limit (MAX_JOBS_PER_OWNER, ...), in HTCondor's words


class Refused(CondorxError):
    """A request refused; `kind` is the error reply's kind (a peer's reply may carry a
    kind this daemon does not know: `wire.RemoteError`)."""

    def __init__(self, kind: Refusal, message: str) -> None:
        super().__init__(message)
        self.kind: str = kind


__all__ = ["ClassAdParseError", "CondorxError", "Refusal", "Refused"]
