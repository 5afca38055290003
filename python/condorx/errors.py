"""The exception hierarchy: the exceptions defined in the Rust core, re-exported, and the
one kind of error that carries a kind.

Every condorx error is a `CondorxError` (ClassAd parse errors too). A `Refused` says what
kind of refusal it is, as an error reply does (bad-request, not-found, permission, busy,
spool, authentication, internal): the server turns one raised by a handler into that
reply, and a client raises the reply as `wire.RemoteError`, a `Refused` too.
"""

from condorx._core import ClassAdParseError, CondorxError


class Refused(CondorxError):
    """A request refused; `kind` is the error reply's kind."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


__all__ = ["ClassAdParseError", "CondorxError", "Refused"]
