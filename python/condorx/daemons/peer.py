"""Who is on the other end of a daemon's connection, as every handler sees it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Peer:
    user: str
    # How the peer proved it: "unix", "token", "fs", "claimtobe" or "anonymous".
    method: str
    address: str
    # Called when the connection ends, however it ends: a claim held over a connection
    # lapses with it (the other side is gone).
    on_close: list[Callable[[], None]] = field(default_factory=list)
