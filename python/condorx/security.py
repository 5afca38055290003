"""Authentication: who is on the other end of a connection.

Two methods, as HTCondor's FS and IDTOKENS methods play the same roles:

- **unix**: on the local socket the kernel tells the daemon the peer's uid
  (SO_PEERCRED); the user is that uid's login name. Nothing to forge, nothing to configure.
- **token**: over TCP the peer proves that it holds a token for a user. A token is
  `condorx1:<user>:<secret>` where the secret is HMAC-SHA256(pool signing key, user), so
  the daemon needs no token database: it recomputes the secret from the pool key. The proof
  is an HMAC of both sides' fresh nonces under that secret, so a captured handshake cannot
  be replayed. Whoever holds the pool key itself (the pool's own daemons, the admin) can act
  as `condor`, the pool's identity.

Authorization is `may_act_on`: a user acts on their own jobs only, unless listed in
QUEUE_SUPER_USERS.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pwd
import secrets
import socket
import struct
from collections.abc import Iterable
from pathlib import Path

from condorx.errors import CondorxError

TOKEN_PREFIX = "condorx1"
POOL_IDENTITY = "condor"
# Who a peer is when it proved nothing: it may only read (queries).
ANONYMOUS = "unauthenticated"


class AuthError(CondorxError):
    """A peer could not prove who it is."""


def ensure_pool_key(path: Path) -> bytes:
    """The pool signing key, created (readable by its owner only) on first use."""
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = secrets.token_hex(32).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, key)
    finally:
        os.close(fd)
    return key


def user_secret(pool_key: bytes, user: str) -> bytes:
    return hmac.new(pool_key, b"user:" + user.encode(), hashlib.sha256).digest()


def make_token(pool_key: bytes, user: str) -> str:
    if not user or ":" in user:
        raise AuthError(f"bad user name for a token: {user!r}")
    return f"{TOKEN_PREFIX}:{user}:{user_secret(pool_key, user).hex()}"


def parse_token(token: str) -> tuple[str, bytes]:
    parts = token.strip().split(":")
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX:
        raise AuthError("not a condorx token")
    try:
        return parts[1], bytes.fromhex(parts[2])
    except ValueError:
        raise AuthError("not a condorx token") from None


def proof(
    secret: bytes, server_nonce: bytes, client_nonce: bytes, user: str, terms: bytes = b""
) -> bytes:
    """The client's proof; `terms` (what it asks of the connection's protection) is under
    the MAC too, so nobody between the two can rewrite it."""
    msg = b"condorx-auth\0" + server_nonce + client_nonce + user.encode() + b"\0" + terms
    return hmac.new(secret, msg, hashlib.sha256).digest()


def secret_for(pool_key: bytes, user: str) -> bytes:
    """The secret a token for `user` holds (the pool identity's is the pool key itself)."""
    return pool_key if user == POOL_IDENTITY else user_secret(pool_key, user)


def check_proof(
    pool_key: bytes,
    user: str,
    server_nonce: bytes,
    client_nonce: bytes,
    mac: bytes,
    terms: bytes = b"",
) -> bytes:
    """The proven identity's secret (to key the session with), or AuthError."""
    secret = secret_for(pool_key, user)
    want = proof(secret, server_nonce, client_nonce, user, terms)
    if not hmac.compare_digest(want, mac):
        raise AuthError(f"token authentication failed for {user!r}")
    return secret


def peer_user(sock: socket.socket) -> str:
    """The login name of the process at the other end of a Unix socket."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid{uid}"


def current_user() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return f"uid{os.getuid()}"


def is_admin(user: str) -> bool:
    """Whether `user` may command this machine's daemons (condor_off, condor_vacate): the
    pool's own identity, root, or the user the daemons run as."""
    return user in (POOL_IDENTITY, "root", current_user())


def may_act_on(user: str, owner: str, super_users: Iterable[str]) -> bool:
    return user == owner or user == POOL_IDENTITY or user in set(super_users)
