"""Connections a daemon keeps open to the daemons it talks to often (the negotiator to
the schedds and startds of each cycle), instead of authenticating a new one per request.

One connection per address; its requests go one at a time. A connection that fails is
dropped (the next request opens another); one found closed when reused (its daemon
closed it as idle, or restarted: it ended before a byte of the reply came) is opened
again once, at once: a daemon that closed a connection read nothing more from it, so
the request was never handled. Any other failure is the caller's: the request may have
been handled. `sweep()`
closes the connections not used since the sweep before, so a peer that no longer
matters holds nothing open."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import trio

from condorx.transport import wire
from condorx.transport.connection import Address, Credentials, connect
from condorx.transport.protocol.message import Message


@dataclass
class _Open:
    channel: wire.Channel | None = None
    lock: trio.Lock = field(default_factory=trio.Lock)
    used: bool = False


class Peers:
    def __init__(self, creds: Credentials, timeout: float) -> None:
        self.creds = creds
        self.timeout = timeout
        self.open: dict[str, _Open] = {}
        # What to prove to a peer that does not take `creds`: a schedd of another pool
        # flocking here, which gave its negotiator a token (its submitters' Capability).
        self.creds_for: dict[str, Credentials] = {}

    async def request(self, address: str, message: Message) -> dict[str, Any]:
        """The reply to `message` from the daemon at `address` (a refusal raises
        RemoteError; no answer within the timeout, TooSlowError)."""
        checked(address)
        peer = self.open.setdefault(address, _Open())
        async with peer.lock:
            peer.used = True
            with trio.fail_after(self.timeout):
                reused = peer.channel is not None
                try:
                    return await self._request(peer, address, message)
                except wire.Closed:
                    if not reused:
                        raise
                return await self._request(peer, address, message)

    async def _request(self, peer: _Open, address: str, message: Message) -> dict[str, Any]:
        if peer.channel is None:
            creds = self.creds_for.get(address, self.creds)
            peer.channel = await connect(checked(address), creds)
        try:
            return await peer.channel.request(message.to_wire())
        except wire.RemoteError:
            raise  # refused: the connection is as good as before
        except BaseException:
            channel, peer.channel = peer.channel, None
            with trio.CancelScope(shield=True):
                await channel.aclose()
            raise

    async def sweep(self) -> None:
        """Close the connections not used since the last sweep."""
        for address, peer in list(self.open.items()):
            if not peer.used and not peer.lock.locked():
                del self.open[address]
                if peer.channel is not None:
                    await peer.channel.aclose()
            peer.used = False

    async def aclose(self) -> None:
        for peer in self.open.values():
            if peer.channel is not None:
                await peer.channel.aclose()
        self.open.clear()


def checked(address: str) -> Address:
    """A peer's advertised address, parsed; a malformed one is that peer's failure."""
    try:
        return Address.parse(address)
    except ValueError as e:
        raise wire.WireError(str(e)) from None
