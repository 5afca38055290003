"""A daemon's accept loop: listeners, the authentication handshake, command dispatch.

Each connection is authenticated first (see `condorx.security`), then carries any number of
requests. A handler is `async def handler(peer, request, channel) -> reply`; it may stream
`{"more": ...}` frames through the channel before returning its final reply. This is the one
place where a handler's exception becomes an error reply.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from condorx import security, wire
from condorx.errors import CondorxError

log = logging.getLogger("condorx.server")


@dataclass(frozen=True)
class Peer:
    user: str
    method: str  # "unix" or "token"
    address: str
    # Called when the connection ends, however it ends: a claim held over a connection
    # lapses with it (the other side is gone).
    on_close: list[Callable[[], None]] = field(default_factory=list)


Handler = Callable[[Peer, dict[str, Any], wire.Channel], Awaitable[dict[str, Any]]]


class Refused(CondorxError):
    """A handler's refusal, sent back as an error reply of the given kind."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Server:
    name: str
    handlers: Mapping[str, Handler]
    pool_key: bytes
    max_frame: int = wire.MAX_FRAME
    # Commands anyone may send without proving who they are (reading the pool's state,
    # as HTCondor's default ALLOW_READ = * permits).
    anonymous: frozenset[str] = frozenset()

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
        await self._connection(stream, lambda ch, hello: self._token_auth(ch, hello, addr))

    async def _unix_connection(self, stream: trio.SocketStream) -> None:
        async def auth(ch: wire.Channel, hello: dict[str, Any]) -> Peer:
            reply = await ch.receive()
            if isinstance(reply, dict) and reply.get("auth") == "token":
                return await self._check_token(ch, hello, reply, "local")
            user = security.peer_user(stream.socket)  # type: ignore[arg-type]
            return Peer(user, "unix", "local")

        await self._connection(stream, auth)

    async def _token_auth(self, ch: wire.Channel, hello: dict[str, Any], addr: str) -> Peer:
        reply = await ch.receive()
        if isinstance(reply, dict) and reply.get("auth") == "anonymous" and self.anonymous:
            return Peer(security.ANONYMOUS, "anonymous", addr)
        if not isinstance(reply, dict) or reply.get("auth") != "token":
            raise security.AuthError("this connection needs token authentication")
        return await self._check_token(ch, hello, reply, addr)

    async def _check_token(
        self, ch: wire.Channel, hello: dict[str, Any], reply: dict[str, Any], addr: str
    ) -> Peer:
        user, nonce, mac = reply.get("user"), reply.get("nonce"), reply.get("mac")
        if not (isinstance(user, str) and isinstance(nonce, bytes) and isinstance(mac, bytes)):
            raise security.AuthError("malformed token authentication")
        security.check_proof(self.pool_key, user, hello["nonce"], nonce, mac)
        return Peer(user, "token", addr)

    async def _connection(
        self,
        stream: trio.SocketStream,
        auth: Callable[[wire.Channel, dict[str, Any]], Awaitable[Peer]],
    ) -> None:
        ch = wire.Channel(stream, self.max_frame)
        hello = {"hello": self.name, "v": wire.VERSION, "nonce": secrets.token_bytes(16)}
        try:
            await ch.send(hello)
            try:
                peer = await auth(ch, hello)
            except (security.AuthError, wire.WireError) as e:
                await ch.send(wire.error_reply("authentication", str(e)))
                return
            await ch.send({"ok": True, "user": peer.user})
            try:
                await self._requests(ch, peer)
            finally:
                for callback in peer.on_close:
                    callback()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            await stream.aclose()

    async def _requests(self, ch: wire.Channel, peer: Peer) -> None:
        while True:
            try:
                request = await ch.receive()
            except wire.WireError as e:
                if "closed by peer" not in str(e):
                    await ch.send(wire.error_reply("bad-request", str(e)))
                return
            reply = await self._dispatch(peer, request, ch)
            # A handler that stops the daemon (condor_off of the master) still answers:
            # the reply goes out even as the daemon's tasks are being cancelled.
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await ch.send(reply)

    async def _dispatch(self, peer: Peer, request: Any, ch: wire.Channel) -> dict[str, Any]:
        if not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
            return wire.error_reply("bad-request", "a request is a map with a 'cmd' string")
        handler = self.handlers.get(request["cmd"])
        if handler is None:
            return wire.error_reply("bad-request", f"unknown command {request['cmd']!r}")
        if peer.user == security.ANONYMOUS and request["cmd"] not in self.anonymous:
            return wire.error_reply(
                "authentication", f"{request['cmd']} needs an identity: use a token"
            )
        try:
            return await handler(peer, request, ch)
        except Refused as e:
            return wire.error_reply(e.kind, str(e))
        except CondorxError as e:
            return wire.error_reply(getattr(e, "kind", "bad-request"), str(e))
        except (ValueError, TypeError, KeyError) as e:
            # A request whose fields have the wrong shape; the daemon carries on.
            log.warning("%s from %s: bad request: %r", request["cmd"], peer.user, e)
            return wire.error_reply("bad-request", f"{request['cmd']}: malformed request: {e}")
        except Exception:
            # A bug in a handler must cost that one request, never the daemon and every
            # other client's connection; the traceback goes to the daemon's log.
            log.exception("%s from %s failed", request["cmd"], peer.user)
            return wire.error_reply("internal", f"{request['cmd']}: internal error (see the log)")


def _address(stream: trio.SocketStream) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
        return f"{host}:{port}"
    except OSError:
        return "?"
