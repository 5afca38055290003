"""Commands for tests of the transport itself (limits, protection): a server that
echoes, and one whose command holds its connection as a claim does."""

from __future__ import annotations

from typing import Any

from condorx.daemons.core.server import Handler, Peer
from condorx.record import record
from condorx.transport import wire
from condorx.transport.protocol.message import Done, Message, Reply
from condorx.transport.protocol.table import Command, Permission


@record(frozen=True)
class Echo(Message):
    command = "echo"
    data: Any = None


@record(frozen=True)
class Hold(Message):
    command = "hold"


@record(frozen=True)
class Echoed(Reply):
    user: str  # who the server says the peer is
    echo: Any = None


async def echo(peer: Peer, req: Echo, ch: wire.Channel) -> Echoed:
    return Echoed(peer.user, req.data)


async def hold(peer: Peer, req: Hold, ch: wire.Channel) -> Done:
    """Like the startd's claim: the connection now holds something until it closes."""
    peer.on_close.append(lambda: None)
    return Done()


HANDLERS: dict[type[Message], Handler] = {Echo: echo, Hold: hold}
COMMANDS = {
    "echo": Command(Echo, Permission.WRITE, Echoed),
    "hold": Command(Hold, Permission.WRITE),
}
