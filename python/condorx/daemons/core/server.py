"""A daemon's accept loop: listeners, the authentication handshake, command dispatch.

Each connection is authenticated first (see `condorx.transport.security`), then carries
any number of requests. A handler is `async def handler(peer, request, channel) ->
reply`; it may stream `{"more": ...}` frames through the channel before returning its
final reply. This is the one place where a handler's exception becomes an error reply.
"""

from __future__ import annotations

import logging
import math
import os
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import trio

from condorx.daemons.core import audit_log, authz
from condorx.daemons.core.authz import Authorizer
from condorx.daemons.core.handshake import Accepted, check_token, welcome
from condorx.errors import CondorxError, Refusal, Refused
from condorx.language.config import Config
from condorx.transport import locate, mux, security, wire
from condorx.transport.cedar import daemon_core
from condorx.transport.cedar.face import CedarCommand, CedarFace
from condorx.transport.limits import Limits
from condorx.transport.peer import Peer
from condorx.transport.protocol import core, table
from condorx.transport.protocol.message import Message, Reply
from condorx.transport.protocol.table import Command, Permission
from condorx.transport.session import Mode, Policy, ProtectionError, Session

# How long a reply may take to go out on a connection of its own.
_REPLY_TIMEOUT = 5.0
log = logging.getLogger("condorx.server")
# Refused authentications and connections, and every change to the job queue: who, what,
# when (the daemon's AUDIT_LOG).
audit = logging.getLogger("condorx.audit")


# A handler gets the request decoded into its type, and answers with its command's reply
# type (`protocol` dataclasses both).
Handler = Callable[[Peer, Any, wire.Channel], Awaitable[Reply]]


@dataclass
class Server:
    name: str
    # Each command's handler, by its request type; the command must be in `commands`.
    handlers: Mapping[type[Message], Handler]
    pool_key: bytes
    limits: Limits = field(default_factory=Limits)
    policy: Policy = field(default_factory=Policy)
    # The commands this server answers, by name: the daemon's own from the table unless
    # given (tests of the transport bring their own).
    commands: Mapping[str, Command] | None = None
    _open: Counter[str] = field(default_factory=Counter)
    # HTCondor's clients on the same TCP port (`add_cedar`).
    cedar: CedarFace | None = None
    # The ALLOW_* / DENY_* lists (condorx's own when the daemon has no configuration).
    authz: Authorizer | None = None
    uid_domain: str = ""
    # The issuer of this pool's tokens (TRUST_DOMAIN), named in the hello: a daemon of
    # another pool picks the token that pool gave it (flocking), as HTCondor's clients
    # pick a token by the server's trust domain.
    issuer: str = ""

    def __post_init__(self) -> None:
        commands = self.commands if self.commands is not None else table.of(self.name)
        self._routes: dict[str, tuple[Command, Handler]] = {}
        handlers: dict[type[Message], Handler] = dict(self.handlers)
        if core.Ping.command in commands:
            handlers.setdefault(core.Ping, self._ping)
        for kind, handler in handlers.items():
            command = commands.get(kind.command)
            if command is None or command.request is not kind:
                raise ValueError(f"the {self.name}'s table has no command for {kind.__name__}")
            self._routes[kind.command] = (command, handler)
        unanswered = sorted(set(commands) - set(self._routes))
        if unanswered:
            raise ValueError(f"the {self.name} has no handler for {', '.join(unanswered)}")
        if self.authz is None:
            self.authz = Authorizer.from_config(None, self.name)
        # Whether an anonymous peer may connect at all: only to read, where anyone may.
        self._readable = any(c.permission is Permission.READ for c, _ in self._routes.values())

    @classmethod
    def configured(
        cls, name: str, handlers: Mapping[type[Message], Handler], pool_key: bytes, cfg: Config
    ) -> Server:
        """A server with the daemon's limits and protection policy from `cfg`."""
        limits, policy = Limits.from_config(cfg), Policy.from_config(cfg)
        authz = Authorizer.from_config(cfg, name)
        server = cls(name, handlers, pool_key, limits, policy, authz=authz)
        server.uid_domain = cfg.get("UID_DOMAIN") or cfg.get("FULL_HOSTNAME") or ""
        server.issuer = security.issuer(cfg)
        server.cfg = cfg
        return server

    cfg: Config | None = None

    @classmethod
    def for_daemon(
        cls,
        name: str,
        handlers: Mapping[type[Message], Handler],
        cfg: Config,
        cedar: list[CedarCommand] | None = None,
    ) -> Server:
        """A daemon's server: the pool key, its limits and protection policy, and its
        CEDAR face (`cedar`, and the commands every daemon answers)."""
        key = security.ensure_pool_key(locate.pool_key_file(cfg))
        server = cls.configured(name, handlers, key, cfg)
        server.add_cedar(cedar or [], cfg)
        return server

    async def listen(
        self,
        nursery: trio.Nursery,
        port: int,
        *,
        host: str | None = None,
        unix: Path | None = None,
        address_file: Path | None = None,
    ) -> str:
        """Serve TCP on `port` (and the Unix socket `unix`) from `nursery`: the daemon's
        address, a sinful string, published in `address_file` when one is named."""
        assert self.cfg is not None, "a daemon's server is made by Server.for_daemon"
        host = locate.bind_host(self.cfg) if host is None else host
        bound = await nursery.start(self.serve_tcp, host, port)
        if unix is not None:
            await nursery.start(self.serve_unix, unix)
        address = locate.sinful(host, bound, self.cfg.get("FULL_HOSTNAME"))
        # HTCondor's words, which condor_who -daemons reads (the schedd's file is SPOOL's).
        log.info("DaemonCore: command socket at %s", address)
        if address_file is not None:
            locate.write_address(address_file, address)
        return address

    def add_cedar(self, commands: list[CedarCommand], cfg: Config) -> None:
        """Answer HTCondor's clients too, on the TCP port, with these commands and
        those every daemon answers (DC_NOP, DC_CONFIG_VAL)."""
        own = daemon_core.own_queries(self.name)
        self.cedar = CedarFace(self, [*commands, *daemon_core.commands(cfg), *own], cfg)

    def show(self, ads: Callable[[], list[dict[str, Any]]]) -> None:
        """What the daemon advertises, for HTCondor's clients that ask it directly."""
        if self.cedar is not None:
            self.cedar.own_ads = ads

    def authorized(self, level: str, peer: Peer) -> bool:
        """Whether `peer` has HTCondor's permission `level` here: every level but READ
        needs a proven identity, and then the ALLOW / DENY lists decide."""
        if level == authz.ALLOW:
            return True
        if level != authz.READ and peer.user == security.ANONYMOUS:
            return False
        if peer.limits is not None and level not in peer.limits:
            return False  # a token scoped to other levels (condor_token_create -authz)
        assert self.authz is not None
        return self.authz.verify(level, self.identity(peer), peer.address)

    def identity(self, peer: Peer) -> str:
        """The peer as the lists name it: `user@domain`, or unauthenticated@unmapped."""
        if peer.user == security.ANONYMOUS:
            return authz.UNAUTHENTICATED
        return peer.user if "@" in peer.user else f"{peer.user}@{self.uid_domain or 'local'}"

    async def call(
        self, peer: Peer, request: Message, ch: wire.Channel, granted: str | None = None
    ) -> dict[str, Any]:
        """Serve a request that came another way than condorx's wire (the CEDAR face):
        the same handler and audit line, and the same permission check unless the
        request serves a command whose HTCondor level (`granted`) the lists already
        granted (HTCondor's level is then the authority: ALLOW_ADVERTISE_STARTD for an
        UPDATE_STARTD_AD, where condorx's own wire asks DAEMON)."""
        frame = request.to_wire()
        reply = await self._dispatch(peer, frame, ch, checked=granted is not None)
        if self.audited(frame):
            audit.info("%s", audit_log.line(self.name, peer, frame, reply))
        return reply

    async def serve_tcp(
        self, host: str, port: int, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
    ) -> None:
        listeners = await trio.open_tcp_listeners(port, host=host)
        bound = listeners[0].socket.getsockname()[1]
        task_status.started(bound)
        await trio.serve_listeners(self._tcp_connection, listeners)

    async def serve_unix(
        self, path: Path, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        await sock.bind(str(path))
        # Any local user may connect; the kernel tells us who they are.
        os.chmod(path, 0o777)
        sock.listen(128)
        listener = trio.SocketListener(sock)
        task_status.started()
        await trio.serve_listeners(self._unix_connection, [listener])

    async def _tcp_connection(self, stream: trio.SocketStream) -> None:
        addr = _address(stream)
        await self._connection(stream, addr, partial(self._sniffed, stream, addr))

    async def _sniffed(self, stream: trio.SocketStream, addr: str, host: str) -> None:
        """condorx's clients open with wire.PREAMBLE, HTCondor's with a CEDAR packet,
        whose first byte (its end flag) is 0 to 10: serve each in its own tongue."""
        first = b""
        with trio.move_on_after(self.limits.handshake_timeout):
            while len(first) < len(wire.PREAMBLE) and not (first and first[0] <= 10):
                chunk = await stream.receive_some(65536)
                if not chunk:
                    break
                first += chunk
        if first[:1] and first[0] <= 10 and self.cedar is not None:
            await self.cedar.serve(stream, first, addr)
        elif first.startswith(wire.PREAMBLE):
            auth = partial(self._token_auth, addr=addr)
            await self._serve_connection(stream, host, auth, first[len(wire.PREAMBLE) :])
        else:
            audit.warning(
                "%s closed a connection from %s: neither condorx's nor HTCondor's protocol",
                self.name,
                addr,
            )

    async def _unix_connection(self, stream: trio.SocketStream) -> None:
        async def auth(ch: wire.Channel, hello: dict[str, Any]) -> Accepted:
            reply = await ch.receive()
            if isinstance(reply, dict) and reply.get("auth") == "token":
                return await self._check_token(ch, hello, reply, "local", local=True)
            user = security.peer_user(stream.socket)  # type: ignore[arg-type]
            return Accepted(Peer(user, "unix", "local"))

        await self._connection(stream, "local", partial(self._serve_connection, stream, auth=auth))

    async def _token_auth(self, ch: wire.Channel, hello: dict[str, Any], addr: str) -> Accepted:
        reply = await ch.receive()
        if isinstance(reply, dict) and reply.get("auth") == "anonymous" and self._readable:
            return Accepted(Peer(security.ANONYMOUS, "anonymous", addr))
        if not isinstance(reply, dict) or reply.get("auth") != "token":
            raise security.AuthError("this connection needs token authentication")
        return await self._check_token(ch, hello, reply, addr)

    async def _check_token(
        self,
        ch: wire.Channel,
        hello: dict[str, Any],
        reply: dict[str, Any],
        addr: str,
        local: bool = False,
    ) -> Accepted:
        return check_token(self.pool_key, self.policy, hello, reply, addr, local)

    async def _connection(
        self, stream: trio.SocketStream, host: str, serve: Callable[[str], Awaitable[None]]
    ) -> None:
        """Count the connection against its host's and the daemon's limits while
        `serve(host)` runs, or refuse it as busy."""
        host = host.rpartition(":")[0] or host  # connections are counted per host
        try:
            if self._admit(host):
                self._open[host] += 1
                try:
                    await serve(host)
                finally:
                    self._open[host] -= 1
                    if not self._open[host]:
                        del self._open[host]
            else:
                with trio.move_on_after(1):
                    busy = f"{self.name}: too many connections; try again later"
                    await wire.StreamChannel(stream).send(wire.error_reply("busy", busy))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            await stream.aclose()

    def _admit(self, host: str) -> bool:
        if self._open[host] >= self.limits.max_per_host:
            audit.warning(
                "%s refused a connection from %s: %d open from there",
                self.name,
                host,
                self._open[host],
            )
            return False
        if self._open.total() >= self.limits.max_connections:
            audit.warning(
                "%s refused a connection from %s: %d open in all",
                self.name,
                host,
                self._open.total(),
            )
            return False
        return True

    async def _serve_connection(
        self,
        stream: trio.SocketStream,
        host: str,
        auth: Callable[[wire.Channel, dict[str, Any]], Awaitable[Accepted]],
        pending: bytes = b"",
    ) -> None:
        # A stranger's frames are small until it has proven who it is.
        ch = wire.StreamChannel(stream, wire.PRE_AUTH_FRAME, pending)
        hello = {"hello": self.name, "v": wire.VERSION, "nonce": secrets.token_bytes(16)}
        if self.issuer:
            hello["issuer"] = self.issuer
        accepted: Accepted | None = None
        with trio.move_on_after(self.limits.handshake_timeout):
            await ch.send(hello)
            try:
                accepted = await auth(ch, hello)
            except (security.AuthError, ProtectionError, wire.WireError) as e:
                audit.warning("%s refused authentication from %s: %s", self.name, host, e)
                await ch.send(wire.error_reply("authentication", str(e)))
                return
        if accepted is None:
            audit.warning(
                "%s closed a connection from %s: no handshake within %g s",
                self.name,
                host,
                self.limits.handshake_timeout,
            )
            return
        peer = accepted.peer
        ch.max_frame = self.limits.max_frame
        await ch.send(welcome(accepted))
        if accepted.keys is not None and accepted.mode is not Mode.CLEAR:
            ch.protect(Session.for_daemon(accepted.keys, accepted.mode))
        try:
            await self._requests(ch, peer)
        finally:
            for callback in peer.on_close:
                callback()

    async def _requests(self, ch: wire.Channel, peer: Peer) -> None:
        while True:
            # An idle connection is closed, unless a claim held over it keeps it.
            idle = math.inf if peer.on_close else self.limits.idle_timeout
            request = _IDLE
            try:
                with trio.move_on_after(idle):
                    request = await ch.receive()
            except wire.Closed:
                return
            except wire.WireError as e:
                if "closed by peer" not in str(e):
                    await ch.send(wire.error_reply("bad-request", str(e)))
                return
            if request is _IDLE:
                log.info("closing %s's connection: idle for %g s", peer.user, idle)
                return
            if request == mux.SWITCH and isinstance(ch, wire.StreamChannel):
                # Only the pool's daemons hold many conversations with one another.
                if not self.authorized(Permission.DAEMON.level, peer):
                    await ch.send(wire.error_reply("permission", "only daemons multiplex"))
                    continue
                await ch.send({"ok": True})
                limits = self.limits
                await mux.serve(
                    ch, partial(self._stream, peer), limits.max_streams, limits.idle_timeout
                )
                return
            reply = await self._dispatch(peer, request, ch)
            if isinstance(request, dict) and self.audited(request):
                audit.info("%s", audit_log.line(self.name, peer, request, reply))
            # A handler that stops the daemon (condor_off of the master) still answers:
            # the reply goes out even as the daemon's tasks are being cancelled. A stream
            # waits its turn on its connection as long as that takes (its connection
            # bounds each frame's sending); a reply not sent ends the conversation, for
            # a peer waiting on it must learn that no answer is coming.
            limit = math.inf if isinstance(ch, mux.Stream) else _REPLY_TIMEOUT
            with trio.CancelScope(shield=True), trio.move_on_after(limit) as sending:
                await ch.send(reply)
            if sending.cancelled_caught:
                log.warning("closing %s's connection: a reply not taken in %g s", peer.user, limit)
                return

    async def _stream(self, peer: Peer, stream: mux.Stream) -> None:
        """One stream of a multiplexed connection: a connection's conversation of its
        own, whose end (not the connection's) lapses what is held over it: at once when
        the client ends it, even while a request on it is being answered."""
        mine = Peer(peer.user, peer.method, peer.address, token=peer.token, limits=peer.limits)
        done = 0

        def lapse() -> None:
            # Each callback once: those there when the stream ends, and any a handler
            # still running adds later (run when the handler is done).
            nonlocal done
            while done < len(mine.on_close):
                callback = mine.on_close[done]
                done += 1
                try:
                    callback()
                except Exception:
                    log.exception("%s: a stream's end could not be acted on", self.name)

        stream.on_end = lapse
        try:
            await self._requests(stream, mine)
        finally:
            lapse()

    async def _dispatch(
        self, peer: Peer, request: Any, ch: wire.Channel, checked: bool = False
    ) -> dict[str, Any]:
        if not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
            return wire.error_reply("bad-request", "a request is a map with a 'cmd' string")
        name = request["cmd"]
        route = self._routes.get(name)
        if route is None:
            return wire.error_reply("bad-request", f"unknown command {name!r}")
        command, handler = route
        if not checked and not self.authorized(command.permission.level, peer):
            return authz.not_allowed(peer, command, self.identity(peer))
        try:
            reply = await handler(peer, command.request.from_wire(request), ch)
            if not isinstance(reply, command.replies):
                raise RuntimeError(f"{name}'s handler answered {type(reply).__name__}")
            return reply.to_wire()
        except Refused as e:
            return wire.error_reply(e.kind, str(e))
        except CondorxError as e:
            return wire.error_reply("bad-request", str(e))
        except (ValueError, TypeError, KeyError) as e:
            # A request whose fields have the wrong shape; the daemon carries on.
            log.warning("%s from %s: bad request: %r", name, peer.user, e)
            return wire.error_reply("bad-request", f"{name}: malformed request: {e}")
        except Exception:
            # A bug in a handler must cost that one request, never the daemon and every
            # other client's connection; the traceback goes to the daemon's log.
            log.exception("%s from %s failed", name, peer.user)
            return wire.error_reply("internal", f"{name}: internal error (see the log)")

    async def _ping(self, peer: Peer, req: core.Ping, ch: wire.Channel) -> core.Pinged:
        """condor_ping: whether this peer may do `what`, judged by the table that judges
        its requests."""
        needed = table.level(req.what)
        if needed is None:
            route = self._routes.get(req.what)
            if route is None:
                raise Refused(
                    Refusal.BAD_REQUEST, f"the {self.name} knows no level or command {req.what!r}"
                )
            needed = route[0].permission
        session = ch.session if isinstance(ch, wire.StreamChannel) else None
        protection = session.mode.value if session is not None else "clear"
        allowed = self.authorized(needed.level, peer)
        return core.Pinged(allowed, peer.user, peer.method, protection, needed.value.upper())

    def audited(self, request: dict[str, Any]) -> bool:
        """Whether the request is one the audit log records (a change to the job queue)."""
        route = self._routes.get(str(request.get("cmd")))
        return route is not None and route[0].audited


_IDLE = object()


def _address(stream: trio.SocketStream) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
        return f"{host}:{port}"
    except OSError:
        return "?"
