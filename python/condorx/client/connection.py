"""Opening an authenticated connection to a daemon (the client side of the handshake)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import trio

from condorx import locate, security, wire
from condorx.config import Config


@dataclass(frozen=True)
class Credentials:
    """What the client can prove: a token (over TCP), or nothing more than its uid (local)."""

    token: str | None = None
    pool_key: bytes | None = None  # a pool daemon's: it acts as the pool identity

    def proof(self, server_nonce: bytes) -> dict[str, object]:
        nonce = secrets.token_bytes(16)
        if self.token:
            user, secret = security.parse_token(self.token)
        elif self.pool_key:
            user, secret = security.POOL_IDENTITY, self.pool_key
        else:
            raise security.AuthError("no token to authenticate with (set CONDORX_TOKEN)")
        mac = security.proof(secret, server_nonce, nonce, user)
        return {"auth": "token", "user": user, "nonce": nonce, "mac": mac}


@dataclass(frozen=True)
class Address:
    """A daemon's address: a Unix socket path, or host and port."""

    unix: Path | None = None
    host: str | None = None
    port: int | None = None

    @classmethod
    def parse(cls, text: str) -> Address:
        text = text.strip().strip("<>")
        if text.startswith("unix:"):
            return cls(unix=Path(text[5:]))
        host, _, port = text.split("?")[0].rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"bad daemon address {text!r}")
        return cls(host=host, port=int(port))

    def __str__(self) -> str:
        return f"unix:{self.unix}" if self.unix else f"<{self.host}:{self.port}>"


async def connect(
    addr: Address, creds: Credentials, max_frame: int = wire.MAX_FRAME
) -> wire.Channel:
    if addr.unix is not None:
        stream: trio.abc.Stream = await trio.open_unix_socket(str(addr.unix))
    else:
        assert addr.host is not None and addr.port is not None
        stream = await trio.open_tcp_stream(addr.host, addr.port)
    ch = wire.Channel(stream, max_frame)
    try:
        hello = await ch.receive()
        if not isinstance(hello, dict) or "nonce" not in hello:
            raise wire.WireError(f"{addr} is not a condorx daemon")
        if addr.unix is not None and not creds.token and not creds.pool_key:
            await ch.send({"auth": "unix"})
        elif not creds.token and not creds.pool_key:
            await ch.send({"auth": "anonymous"})  # enough to read; anything else is refused
        else:
            await ch.send(creds.proof(hello["nonce"]))
        wire.check(await ch.receive())
    except BaseException:
        await ch.aclose()
        raise
    return ch


def user_credentials(cfg: Config, environ: Mapping[str, str] | None = None) -> Credentials:
    """What this user can prove over TCP: `CONDORX_TOKEN`, a token file in
    SEC_TOKEN_DIRECTORY, or a token made from the pool key when this user can read it."""
    env = os.environ if environ is None else environ
    if env.get("CONDORX_TOKEN"):
        return Credentials(token=env["CONDORX_TOKEN"])
    tokens = locate.token_dir(cfg)
    if tokens.is_dir():
        for path in sorted(tokens.iterdir()):
            try:
                return Credentials(token=path.read_text().strip())
            except OSError:
                continue
    try:
        key = locate.pool_key_file(cfg).read_bytes().strip()
    except OSError:
        return Credentials()
    return Credentials(token=security.make_token(key, security.current_user()))


def daemon_credentials(cfg: Config) -> Credentials:
    """A pool daemon's: it holds the pool key and acts as the pool identity."""
    return Credentials(pool_key=security.ensure_pool_key(locate.pool_key_file(cfg)))
