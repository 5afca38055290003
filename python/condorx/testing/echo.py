"""Commands for tests of the transport itself (limits, protection): a server that
echoes, and one whose command holds its connection as a claim does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from condorx import wire
from condorx.daemons.server import Handler, Peer
from condorx.protocol.message import Message
from condorx.protocol.table import Command, Permission


@dataclass(frozen=True)
class Echo(Message):
    command = "echo"
    data: Any = None


@dataclass(frozen=True)
class Hold(Message):
    command = "hold"


async def echo(peer: Peer, req: Echo, ch: wire.Channel) -> dict[str, Any]:
    return {"ok": True, "user": peer.user, "echo": req.data}


async def hold(peer: Peer, req: Hold, ch: wire.Channel) -> dict[str, Any]:
    """Like the startd's claim: the connection now holds something until it closes."""
    peer.on_close.append(lambda: None)
    return {"ok": True}


HANDLERS: dict[type[Message], Handler] = {Echo: echo, Hold: hold}
COMMANDS = {"echo": Command(Echo, Permission.WRITE), "hold": Command(Hold, Permission.WRITE)}
