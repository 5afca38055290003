"""A daemon's CEDAR face: HTCondor's clients on the daemon's own TCP port.

A connection carries one command (or, after an update, several on the same session,
ended by DC_NOP). Each command arrives raw (its number and payload in one message) or
after DC_AUTHENTICATE (the payload in the next message). The face decodes the payload
into one of condorx's own requests and hands it to the daemon's `Server`, which checks
the same permission table and runs the same handler as for condorx's own wire; the face
then writes the handler's answer as HTCondor's client expects it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import trio

from condorx.classad import ClassAd
from condorx.language.config import Config
from condorx.transport import security, tokens, wire
from condorx.transport.cedar import auth
from condorx.transport.cedar.codec import CedarError, Reader, Writer
from condorx.transport.cedar.commands import Cmd, method_bit
from condorx.transport.cedar.handshake import Handshake, Session, Sessions
from condorx.transport.cedar.packets import Closed, Connection
from condorx.transport.cedar.policy import SecurityPolicy
from condorx.transport.limits import Limits
from condorx.transport.peer import Peer
from condorx.transport.protocol.message import Message

log = logging.getLogger("condorx.transport.cedar")
audit = logging.getLogger("condorx.audit")

# Once a peer has authenticated, a message may be this large (a submission's worth).
MAX_MESSAGE = 256 * 1024 * 1024
PRE_AUTH_MESSAGE = 64 * 1024


class Server(Protocol):
    """What the face needs of the daemon's server (`condorx.daemons.core.server.Server`)."""

    name: str
    limits: Limits

    def authorized(self, level: str, peer: Peer) -> bool: ...

    async def call(
        self, peer: Peer, request: Message, ch: wire.Channel, granted: str | None = None
    ) -> dict[str, Any]: ...


class Sink(wire.Channel):
    """The channel a handler streams its rows into when the CEDAR face called it."""

    def __init__(self, on_rows: Callable[[Any], Awaitable[None]]) -> None:
        self.on_rows = on_rows

    async def send(self, obj: Any) -> None:
        if isinstance(obj, dict) and "more" in obj:
            await self.on_rows(obj["more"])

    async def receive(self) -> Any:
        raise wire.Closed("the CEDAR face sends nothing more to a handler")

    async def aclose(self) -> None:
        pass


@dataclass
class Call:
    """One command being served: its connection, its payload, who asked."""

    face: CedarFace
    conn: Connection
    command: int
    peer: Peer
    session: Session | None
    _payload: Reader | None

    async def payload(self) -> Reader:
        """The command's payload: the rest of a raw command's message, else the next."""
        if self._payload is not None and not self._payload.at_end():
            reader, self._payload = self._payload, None
            return reader
        return Reader(await self.conn.receive(), self.conn.encrypted)

    def writer(self) -> Writer:
        return Writer(self.conn.encrypted)

    async def send(self, writer: Writer) -> None:
        await self.conn.send(writer.bytes())

    async def dispatch(
        self, request: Message, on_rows: Callable[[Any], Awaitable[None]] | None = None
    ) -> dict[str, Any]:
        """Run `request` through the daemon's server: its permission check and handler.
        The reply as the server sends it ({"ok": ...}); rows go to `on_rows`."""

        async def ignore(rows: Any) -> None:
            return None

        spec = self.face.commands.get(self.command)
        granted = spec.level if spec is not None else None
        return await self.face.server.call(
            self.peer, request, Sink(on_rows or ignore), granted=granted
        )


# A command's server: reads the payload through the Call and answers; True to keep the
# connection for further commands on the same session (updates to a collector).
Serve = Callable[[Call], Awaitable[bool]]


@dataclass(frozen=True)
class CedarCommand:
    number: int
    level: str  # HTCondor's permission level: READ, WRITE, ADMINISTRATOR, DAEMON, ALLOW
    serve: Serve
    forced: bool = False  # authentication is required whatever the policy says


async def _nop(call: Call) -> bool:
    return False


class CedarFace:
    """The CEDAR commands one daemon answers."""

    def __init__(self, server: Server, commands: list[CedarCommand], cfg: Config) -> None:
        self.server = server
        # The daemon's own ads, as it advertises them (what `directQuery` asks for).
        self.own_ads: Callable[[], list[dict[str, Any]]] = list
        self.commands = {c.number: c for c in commands}
        self.commands.setdefault(Cmd.DC_NOP, CedarCommand(Cmd.DC_NOP, "ALLOW", _nop))
        known = {n: (c.level, c.forced) for n, c in self.commands.items()}
        self.handshake = Handshake(SecurityPolicy.from_config(cfg), Sessions(), known, self.allowed)

    def allowed(self, command: int, name: str | None, address: str) -> bool:
        """Whether `name` (None: nobody proven) at `address` may run `command`: its
        HTCondor level, as the ALLOW / DENY lists grant it. (The condorx requests the
        command becomes are then served without condorx's own level check.)"""
        spec = self.commands.get(command)
        if spec is None:
            return False
        return self.server.authorized(spec.level, Peer(_user(name), "cedar", address))

    async def serve(self, stream: trio.SocketStream, first: bytes, address: str) -> None:
        conn = Connection(stream, first, PRE_AUTH_MESSAGE)
        local = _local(stream)
        try:
            with trio.move_on_after(self.server.limits.handshake_timeout) as deadline:
                call = await self._open(conn, local, address)
            if deadline.cancelled_caught:
                audit.warning(
                    "%s: no CEDAR command from %s within the handshake time",
                    self.server.name,
                    address,
                )
                return
            # Past the handshake, a connection may idle as long as condorx's own may.
            conn.idle = self.server.limits.idle_timeout
            while call is not None:
                keep = await self.commands[call.command].serve(call)
                if not keep:
                    return
                call = await self._next(call)
        except Closed:
            return
        except CedarError as e:
            audit.warning("%s refused a CEDAR peer at %s: %s", self.server.name, address, e)
        except Exception:
            # A daemon never dies of a peer's bytes: this connection ends, the rest go on.
            log.exception("%s: a CEDAR connection from %s failed", self.server.name, address)

    async def _open(self, conn: Connection, local: tuple[str, int], address: str) -> Call | None:
        msg = Reader(await conn.receive(), conn.encrypted)
        number = msg.integer()
        if number == Cmd.DC_AUTHENTICATE:
            outcome = await self.handshake.run(conn, msg, local, address)
            if outcome is None or outcome.real == Cmd.DC_AUTHENTICATE:
                return None  # refused, or only authenticating
            conn.max_message = MAX_MESSAGE
            if outcome.real == Cmd.DC_SEC_QUERY:  # a ping: may the client run it?
                answer = ClassAd({"AuthorizationSucceeded": True})
                await conn.send(Writer(conn.encrypted).classad(answer).bytes())
                return None
            peer = _peer(outcome.session, address)
            return Call(self, conn, outcome.command, peer, outcome.session, None)
        spec = self.commands.get(number)
        if spec is not None and spec.forced:
            return await self._in_stream(conn, msg, number, local, address)
        if spec is None or not self.allowed(number, None, address):
            # A raw command is nobody's: the lists must grant its level to
            # unauthenticated@unmapped.
            log.info("%s: raw CEDAR command %d from %s refused", self.server.name, number, address)
            return None
        peer = _peer(None, address)
        return Call(self, conn, number, peer, None, msg)

    async def _in_stream(
        self, conn: Connection, msg: Reader, number: int, local: tuple[str, int], address: str
    ) -> Call | None:
        """A raw command that needs a proven peer (a client that does not negotiate):
        authenticated in the stream, right after its number, with WRITE's methods, as
        HTCondor's DaemonCore does (and its clients expect, ConnectQ among them)."""
        methods = self.handshake.policy.for_level("WRITE", True).methods
        proven = await auth.authenticate(
            conn, [method_bit(m) for m in methods], local, self.handshake.policy, msg
        )
        name = proven.name if proven is not None else None
        if name is None or not self.allowed(number, name, address):
            log.info(
                "%s: raw CEDAR command %d from %s refused (%s)",
                self.server.name,
                number,
                address,
                f"{name} may not" if name else "no method proved who sent it",
            )
            return None
        conn.max_message = MAX_MESSAGE
        assert proven is not None
        peer = Peer(_user(name), proven.method.lower(), address, token=proven.token)
        return Call(self, conn, number, peer, None, None)

    async def _next(self, call: Call) -> Call | None:
        """The next command on a kept connection: a raw int in the same session."""
        try:
            msg = Reader(await call.conn.receive(), call.conn.encrypted)
        except Closed:
            return None
        number = msg.integer()
        if number not in self.commands:
            return None
        if call.session is not None and number not in call.session.commands:
            return None
        if call.session is None and not self.allowed(number, None, call.peer.address):
            return None
        return Call(self, call.conn, number, call.peer, call.session, msg)


def _user(name: str | None) -> str:
    """condorx's user for an authenticated name (`alice@domain` is alice)."""
    if name is None or name.endswith("@unmapped"):
        # A name no map line gave a user (ssl@unmapped: a certificate the map file
        # does not know) proves nobody this pool knows, as HTCondor gives such a name
        # no user record.
        return security.ANONYMOUS
    return tokens.local_user(name) or security.ANONYMOUS


def _peer(session: Session | None, address: str) -> Peer:
    if session is None or session.name is None:
        return Peer(security.ANONYMOUS, "anonymous", address)
    return Peer(_user(session.name), session.method.lower(), address, token=session.token)


def _local(stream: trio.SocketStream) -> tuple[str, int]:
    try:
        host, port = stream.socket.getsockname()[:2]
        return str(host), int(port)
    except OSError:
        return "0.0.0.0", 0
