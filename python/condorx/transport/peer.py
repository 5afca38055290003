"""Who is on the other end of a daemon's connection, as every handler sees it, and how
another daemon's failure shows (a daemon never dies of one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from condorx.classad import ClassAdParseError
from condorx.transport import security, wire


@dataclass(frozen=True)
class Peer:
    user: str
    # How the peer proved it: "unix", "token", "fs", "claimtobe" or "anonymous".
    method: str
    address: str
    # Called when the connection ends, however it ends: a claim held over a connection
    # lapses with it (the other side is gone).
    on_close: list[Callable[[], None]] = field(default_factory=list)
    # What the token it proved itself with says (AuthTokenSubject, AuthTokenIssuer,
    # AuthTokenId, AuthTokenScopes, AuthTokenGroups): HTCondor's schedd stamps them
    # into the jobs it submits, as attributes only the schedd may set.
    token: dict[str, str] = field(default_factory=dict)
    # The levels a scoped token (`condor:/LEVEL`) allows, with those they imply; None
    # for no limit. The lists still decide within them.
    limits: frozenset[str] | None = None


# What a peer (another daemon) that is down, slow, refuses or misspeaks raises.
PEER_FAILURES: tuple[type[Exception], ...] = (
    OSError,
    security.AuthError,
    trio.BrokenResourceError,
    trio.TooSlowError,
    wire.WireError,
    wire.RemoteError,
    ClassAdParseError,
)


def why(e: Exception) -> str:
    # TooSlowError from fail_after says nothing; its name does.
    return str(e) or type(e).__name__
