"""Opening an authenticated connection to a daemon (the client side of the handshake)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from condorx.language.config import Config
from condorx.record import field, record
from condorx.transport import blocking, locate, security, wire
from condorx.transport.protocol.message import Message
from condorx.transport.session import Keys, Mode, Policy, Session, accepts

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

# hashlib, hmac and secrets are imported by the functions that use them: a tool on the
# schedd's local socket uses none, and loading OpenSSL was 2 ms of its every run.


@record(frozen=True)
class Credentials:
    """What the client can prove: a token (over TCP), or nothing more than its uid (local);
    and what it asks of the connection's protection."""

    token: str | None = None
    pool_key: bytes | None = None  # a pool daemon's: it acts as the pool identity
    policy: Policy = field(default_factory=Policy)
    # The issuer of this side's own tokens (TRUST_DOMAIN), and tokens other pools gave
    # it, by their issuer: a daemon that names another issuer in its hello is shown
    # the token its pool made (a schedd flocking to another pool's collector and startds).
    issuer: str = ""
    foreign: tuple[tuple[str, str], ...] = ()

    def for_issuer(self, issuer: object) -> Credentials:
        """What to prove to a daemon whose tokens `issuer` makes: a token of its pool
        when it is another pool and one is held, else what this side always proves."""
        if not isinstance(issuer, str) or not issuer or issuer == self.issuer:
            return self
        for named, token in self.foreign:
            if named == issuer:
                return Credentials(token=token, policy=self.policy, issuer=self.issuer)
        return self

    def proof(self, server_nonce: bytes) -> tuple[dict[str, object], Keys, str]:
        """The token handshake's message, the session keys it makes, and the user."""
        import secrets

        nonce = secrets.token_bytes(16)
        shown: str | None = None
        if self.token:
            user, secret, shown = security.parse_token(self.token)
        elif self.pool_key:
            user, secret = security.POOL_IDENTITY, self.pool_key
        else:
            raise security.AuthError("no token to authenticate with (set CONDORX_TOKEN)")
        mac = security.proof(secret, server_nonce, nonce, user, self.policy.terms())
        message: dict[str, object] = {
            "auth": "token",
            "user": user,
            "nonce": nonce,
            "mac": mac,
            "protection": self.policy.to_wire(),
        }
        if shown is not None:
            message["token"] = shown  # header.payload: the daemon recomputes the rest
        return message, Keys.derive(secret, server_nonce, nonce, user), user


@record(frozen=True)
class Address:
    """A daemon's address: a Unix socket path, or host and port."""

    unix: str | None = None
    host: str | None = None
    port: int | None = None
    # A sinful string's parameters (`noUDP`): shown with the address, no part of which
    # daemon it names.
    params: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text: str) -> Address:
        text = text.strip().partition("\n")[0].strip().strip("<>")  # an address file's first line
        if text.startswith("unix:"):
            return cls(unix=text[5:])
        where, _, params = text.partition("?")
        host, _, port = where.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"bad daemon address {text!r}")
        return cls(host=host, port=int(port), params=params)

    def __str__(self) -> str:
        if self.unix:
            return f"unix:{self.unix}"
        return f"<{self.host}:{self.port}{'?' + self.params if self.params else ''}>"


async def connect(
    addr: Address, creds: Credentials, max_frame: int = wire.MAX_FRAME
) -> wire.StreamChannel:
    stream = await _open(addr)
    if addr.unix is None:
        await stream.send_all(wire.PREAMBLE)
    # Until the daemon has proven itself, it gets no more room than a stranger would.
    ch = wire.StreamChannel(stream, wire.PRE_AUTH_FRAME)
    try:
        hello = await ch.receive()
        if isinstance(hello, dict) and hello.get("ok") is False:
            wire.check(hello)  # refused before the handshake (too many connections)
        if not isinstance(hello, dict) or "nonce" not in hello:
            raise wire.WireError(f"{addr} is not a condorx daemon")
        token = None
        if addr.unix is not None and not creds.token and not creds.pool_key:
            await ch.send({"auth": "unix"})
        elif not creds.token and not creds.pool_key:
            await ch.send({"auth": "anonymous"})  # enough to read; anything else is refused
        else:
            message, keys, user = creds.for_issuer(hello.get("issuer")).proof(hello["nonce"])
            await ch.send(message)
            token = (keys, user)
        reply = wire.check(await ch.receive())
        if token is not None:
            _take_protection(ch, addr, reply, *token, creds.policy)
        ch.max_frame = max_frame
    except BaseException:
        await ch.aclose()
        raise
    return ch


async def _open(addr: Address) -> Any:
    """A stream to the daemon: a trio stream, or a blocking one in a blocking run (a
    command-line tool's)."""
    if blocking.active():
        if addr.unix is not None:
            return blocking.Stream.unix(str(addr.unix))
        assert addr.host is not None and addr.port is not None
        return blocking.Stream.tcp(addr.host, addr.port)
    import trio

    if addr.unix is not None:
        return await trio.open_unix_socket(str(addr.unix))
    assert addr.host is not None and addr.port is not None
    return await trio.open_tcp_stream(addr.host, addr.port)


def _take_protection(
    ch: wire.StreamChannel,
    addr: Address,
    reply: dict[str, Any],
    keys: Keys,
    user: str,
    policy: Policy,
) -> None:
    """Check the daemon's proof of what it decided, then protect the channel that way."""
    import hmac

    try:
        mode = Mode(reply.get("protection"))
    except ValueError:
        raise wire.WireError(f"{addr} named no protection for the connection") from None
    proof = reply.get("accept")
    if not isinstance(proof, bytes) or not hmac.compare_digest(proof, keys.acceptance(mode, user)):
        raise security.AuthError(f"{addr} could not prove it is a daemon of this pool")
    if addr.unix is None and not accepts(policy, mode):
        raise security.AuthError(
            f"{addr} offers a {mode.value} connection; this side asks for encryption "
            f"{policy.encryption.value}, integrity {policy.integrity.value}"
        )
    if mode is not Mode.CLEAR:
        ch.protect(Session.for_client(keys, mode))


def user_credentials(cfg: Config, environ: Mapping[str, str] | None = None) -> Credentials:
    """What this user can prove over TCP: `CONDORX_TOKEN`, a token file in
    SEC_TOKEN_DIRECTORY, or a token made from the pool key when this user can read it."""
    env = os.environ if environ is None else environ
    policy = Policy.from_config(cfg, "CLIENT")
    if env.get("CONDORX_TOKEN"):
        return Credentials(token=env["CONDORX_TOKEN"], policy=policy)
    found = locate.token_files(locate.token_dir(cfg))
    if found:
        return Credentials(token=found[0], policy=policy)
    try:
        with open(locate.pool_key_file(cfg), "rb") as f:
            key = f.read().strip()
    except OSError:
        return Credentials(policy=policy)
    issuer = security.issuer(cfg)
    return Credentials(
        token=security.make_token(key, security.current_user(), issuer), policy=policy
    )


def daemon_credentials(cfg: Config) -> Credentials:
    """A pool daemon's: it holds the pool key and acts as the pool identity; to another
    pool's daemons, it shows a token that pool made, from SEC_TOKEN_SYSTEM_DIRECTORY."""
    key = security.ensure_pool_key(locate.pool_key_file(cfg))
    return Credentials(
        pool_key=key,
        policy=Policy.from_config(cfg),
        issuer=security.issuer(cfg),
        foreign=_foreign_tokens(cfg.get("SEC_TOKEN_SYSTEM_DIRECTORY") or ""),
    )


def _foreign_tokens(directory: str) -> tuple[tuple[str, str], ...]:
    """The tokens in `directory` (in name order, as HTCondor reads tokens.d), each with
    its issuer; unreadable files and ones that are no token are passed over."""
    out = []
    for token in locate.token_files(directory):
        try:
            out.append((_issuer_of(token), token))
        except security.AuthError:
            continue
    return tuple(out)


def _issuer_of(token: str) -> str:
    """A token's issuer (AuthError when it is no token)."""
    from condorx.transport import tokens

    try:
        return tokens.read(token).issuer
    except tokens.TokenError as e:
        raise security.AuthError(f"not a token: {e}") from None


async def call(addr: Address, creds: Credentials, message: Message) -> dict[str, Any]:
    """One request on a connection of its own; the reply (a refusal raises RemoteError)."""
    ch = await connect(addr, creds)
    try:
        return await ch.request(message.to_wire())
    finally:
        await ch.aclose()
