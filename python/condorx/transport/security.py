"""Authentication: who is on the other end of a connection.

Two methods, as HTCondor's FS and IDTOKENS methods play the same roles:

- **unix**: on the local socket the kernel tells the daemon the peer's uid
  (SO_PEERCRED); the user is that uid's login name. Nothing to forge, nothing to configure.
- **token**: over TCP the peer proves that it holds a token for a user: one token format
  for the whole pool, HTCondor's (a JWT signed from the pool signing key,
  `condorx.transport.tokens`), so the tokens condor_token_create makes serve HTCondor's clients
  and condorx's alike. The peer sends the token's header and payload, never its
  signature; the daemon recomputes the signature from the pool key (it needs no token
  database) and checks that the token has not expired. The proof is an HMAC of both
  sides' fresh nonces under the signature, so a captured handshake cannot be replayed.
  Whoever holds the pool key itself (the pool's own daemons, the admin) can act as
  `condor`, the pool's identity.

Authorization is `may_act_on`: a user acts on their own jobs only, unless listed in
QUEUE_SUPER_USERS.
"""

from __future__ import annotations

import _socket
import os
import pwd
import struct
from collections.abc import Iterable

from condorx.errors import CondorxError
from condorx.host.accounts import current_user
from condorx.language.config import Config
from condorx.transport import levels, tokens

# hashlib, hmac and secrets are imported by the functions that use them: a tool on the
# schedd's local socket uses none, and loading OpenSSL was 2 ms of its every run. For the
# same reason the socket constants come from `_socket`, not `socket` (transport.blocking).

POOL_IDENTITY = "condor"
# Who a peer is when it proved nothing: it may only read (queries).
ANONYMOUS = "unauthenticated"


class AuthError(CondorxError):
    """A peer could not prove who it is."""


def ensure_pool_key(path: str | os.PathLike[str]) -> bytes:
    """The pool signing key, created (readable by its owner only) on first use."""
    import secrets

    try:
        with open(path, "rb") as f:
            return f.read().strip()
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
    key = secrets.token_hex(32).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, key)
    finally:
        os.close(fd)
    return key


def make_token(
    pool_key: bytes,
    user: str,
    issuer: str = "condorx",
    lifetime: int | None = None,
    scopes: list[str] | None = None,
) -> str:
    """A token for `user` (user@domain, or a bare name: then @issuer)."""
    if not user or ":" in user or user.startswith("@"):
        raise AuthError(f"bad user name for a token: {user!r}")
    subject = user if "@" in user else f"{user}@{issuer}"
    try:
        return tokens.make(tokens.jwt_key(pool_key), issuer, subject, lifetime, scopes)
    except tokens.TokenError as e:
        raise AuthError(str(e)) from None


def issuer(cfg: Config) -> str:
    """The issuer this pool's tokens name (TRUST_DOMAIN), as condor_token_create writes it."""
    return cfg.get("TRUST_DOMAIN") or "condorx"


def token_attrs(
    subject: str, issuer: str, token_id: str, scopes: tuple[str, ...]
) -> dict[str, str]:
    """What HTCondor's methods put in a token-authenticated session's policy ad
    (AuthTokenSubject, ...), as both of condorx's wires keep it."""
    out = {"AuthTokenSubject": subject, "AuthTokenIssuer": issuer}
    if token_id:
        out["AuthTokenId"] = token_id
    if scopes:
        out["AuthTokenScopes"] = ",".join(scopes)
    return out


def token_facts(shown: str) -> dict[str, str]:
    """`token_attrs` of a token shown in a handshake (`header.payload`, verified)."""
    try:
        claims = tokens.read(shown)
    except tokens.TokenError:
        return {}
    return token_attrs(claims.subject, claims.issuer, claims.token_id, claims.scopes)


def token_limits(facts: dict[str, str]) -> frozenset[str] | None:
    """The levels a token's scopes leave its holder (None: no limit)."""
    scopes = facts.get("AuthTokenScopes")
    return levels.limits_of(scopes.split(",")) if scopes else None


def parse_token(token: str) -> tuple[str, bytes, str]:
    """A token's user, its secret (the signature) and what the daemon is shown of it."""
    try:
        unsigned, signature = tokens.split(token)
        claims = tokens.read(unsigned)
    except tokens.TokenError as e:
        raise AuthError(f"not a token: {e}") from None
    return tokens.local_user(claims.subject), signature, unsigned


def proof(
    secret: bytes, server_nonce: bytes, client_nonce: bytes, user: str, terms: bytes = b""
) -> bytes:
    """The client's proof; `terms` (what it asks of the connection's protection) is under
    the MAC too, so nobody between the two can rewrite it."""
    import hashlib
    import hmac

    msg = b"condorx-auth\0" + server_nonce + client_nonce + user.encode() + b"\0" + terms
    return hmac.new(secret, msg, hashlib.sha256).digest()


def check_proof(
    pool_key: bytes,
    user: str,
    server_nonce: bytes,
    client_nonce: bytes,
    mac: bytes,
    terms: bytes = b"",
    token: str | None = None,
) -> bytes:
    """The proven identity's secret (to key the session with), or AuthError: the
    signature of the token shown (`header.payload`), or the pool key itself for the
    pool identity."""
    import hmac

    if token is None:
        if user != POOL_IDENTITY:
            raise AuthError(f"token authentication failed for {user!r}: no token shown")
        secret = pool_key
    else:
        key = tokens.jwt_key(pool_key)
        try:
            claims = tokens.read(token)
            if claims.key_id != "POOL":
                raise tokens.TokenError(f"the token is signed with {claims.key_id!r}")
            tokens.verify(token, key, None)
        except tokens.TokenError as e:
            raise AuthError(f"token authentication failed for {user!r}: {e}") from None
        if tokens.local_user(claims.subject) != user:
            raise AuthError(f"token authentication failed for {user!r}: the token is another's")
        secret = tokens.sign(key, token)
    want = proof(secret, server_nonce, client_nonce, user, terms)
    if not hmac.compare_digest(want, mac):
        raise AuthError(f"token authentication failed for {user!r}")
    return secret


def peer_user(sock: _socket.socket) -> str:
    """The login name of the process at the other end of a Unix socket."""
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid{uid}"


def is_admin(user: str) -> bool:
    """Whether `user` may command this machine's daemons (condor_off, condor_vacate): the
    pool's own identity, root, or the user the daemons run as."""
    return user in (POOL_IDENTITY, "root", current_user())


def may_act_on(user: str, owner: str, super_users: Iterable[str]) -> bool:
    return user == owner or user == POOL_IDENTITY or user in set(super_users)
