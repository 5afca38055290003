"""The server's side of HTCondor's authentication methods, inside a CEDAR handshake.

- **FS**: the daemon names a directory that does not exist (`FS_<ip>_<port>_XXXXXXXXX_`
  under FS_LOCAL_DIR, else /tmp); the client adds its view of the daemon's ip:port,
  creates the directory and says what it added; the daemon checks that the addition is
  its own address and `lstat`s the directory: a real directory (no link) owned by a
  user proves that the client runs as that user on this host.
- **TOKEN** (IDTOKENS): the client proves it holds a token this pool signed
  (`condorx.transport.cedar.idtokens`).
- **CLAIMTOBE**: the client names itself and is believed. Only where configured (for
  tests and personal pools).

Each returns the authenticated name (`user` or `user@domain`), or None.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import pwd
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from condorx.transport import security
from condorx.transport.cedar import idtokens, scitokens, ssl_auth
from condorx.transport.cedar.codec import Reader, Writer
from condorx.transport.cedar.commands import AuthBit
from condorx.transport.cedar.packets import Connection
from condorx.transport.cedar.policy import SecurityPolicy
from condorx.transport.levels import levels, limits_of

log = logging.getLogger("condorx.security")


def _user_of(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid{uid}"


def _same_endpoint(text: str, mine: tuple[str, int]) -> bool:
    """Whether `ip:port` (IPv6 in brackets) names this end of the connection."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host) == ipaddress.ip_address(mine[0]) and int(port) == mine[1]
    except ValueError:
        return False


async def fs(conn: Connection, local: tuple[str, int], parent: str) -> str | None:
    base = Path(parent.rstrip("/") or "/tmp")
    # A name nobody has: HTCondor makes it with mkstemp and removes the file at once.
    name = f"FS_{local[0]}_{local[1]}_{secrets.token_hex(5)[:9]}_"
    directory = str(base / name)
    await conn.send(Writer(conn.encrypted).string(directory).bytes())
    reply = Reader(await conn.receive(), conn.encrypted)
    claimed = reply.integer()
    ext = "" if reply.at_end() else reply.text()
    user: str | None = None
    if claimed != -1 and "/" not in ext and (not ext or _same_endpoint(ext, local)):
        user = _owner(directory + ext)
    await conn.send(Writer(conn.encrypted).integer(0 if user else -1).bytes())
    return user


def _owner(path: str) -> str | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    # A directory, not a link to one (a link could lend another user's ownership); a
    # hard link to a directory only root can make.
    if not stat.S_ISDIR(st.st_mode) or st.st_nlink > 2:
        return None
    return _user_of(st.st_uid)


async def claimtobe(conn: Connection) -> str | None:
    msg = Reader(await conn.receive(), conn.encrypted)
    user = msg.text() if msg.integer() == 1 else ""
    await conn.send(Writer(conn.encrypted).integer(1 if user else 0).bytes())
    return user or None


@dataclass(frozen=True)
class Proven:
    """Who authenticated, how, and (a token's scopes) which levels alone it may use."""

    name: str
    method: str
    limits: frozenset[str] | None = None
    token: dict[str, str] = field(default_factory=dict)  # the AuthToken* attributes


async def authenticate(
    conn: Connection,
    methods: list[int],
    local: tuple[str, int],
    policy: SecurityPolicy,
    pending: Reader | None = None,
) -> Proven | None:
    """Run the method handshake and the method both sides share, first in the daemon's
    order; who was proven, or None when every shared method failed. `pending`: a
    message whose rest holds the client's first offer (a raw command's, authenticated
    in the stream, comes in the command's own message)."""
    tried: set[int] = set()
    while True:
        if pending is not None and not pending.at_end():
            offered, pending = pending.integer(), None
        else:
            offered = Reader(await conn.receive(), conn.encrypted).integer()
        chosen = next((m for m in methods if m & offered and m not in tried), 0)
        await conn.send(Writer(conn.encrypted).integer(chosen).bytes())
        if not chosen:
            return None
        tried.add(chosen)
        method = AuthBit(chosen).name
        if chosen == AuthBit.TOKEN:  # IDTOKENS name their subject: no map file
            claims = await idtokens.authenticate(conn, policy.token_keys(), policy.trust_domain)
            if claims is not None:
                attrs = security.token_attrs(
                    claims.subject, claims.issuer, claims.token_id, claims.scopes
                )
                return Proven(claims.subject, method, limits_of(claims.scopes), attrs)
            continue
        if chosen in (AuthBit.SSL, AuthBit.SCITOKENS):
            run = _ssl if chosen == AuthBit.SSL else _scitokens
            proven = await run(conn, policy)
            if proven is not None:
                return proven
            continue
        if chosen == AuthBit.FS:
            name = await fs(conn, local, policy.fs_dir)
        else:  # CLAIMTOBE: the only other method offered
            name = await claimtobe(conn)
        if name is not None:
            return Proven(mapped(policy, method, name) or name, method)


def mapped(policy: SecurityPolicy, method: str, principal: str) -> str | None:
    """What the map file makes of `principal` proved by `method`, or None."""
    table = policy.map_file
    return table.map(method, principal) if table is not None else None


async def _ssl(conn: Connection, policy: SecurityPolicy) -> Proven | None:
    """SSL: the certificate's subject as the map file maps it, else ssl@unmapped (or
    unauthenticated@unmapped for a client with no certificate)."""
    cfg = policy.cfg
    require_cert = cfg.get_bool("AUTH_SSL_REQUIRE_CLIENT_CERTIFICATE", False)
    require_map = cfg.get_bool("AUTH_SSL_REQUIRE_CLIENT_MAPPING", False)

    def accept(subject: str) -> bool:
        if not subject:
            return not require_cert
        return not require_map or mapped(policy, "SSL", subject) is not None

    peer = await ssl_auth.authenticate(conn, policy.ssl_context, accept)
    if peer is None:
        return None
    principal = peer.subject or "unauthenticated"
    default = "ssl@unmapped" if peer.subject else "unauthenticated@unmapped"
    return Proven(mapped(policy, "SSL", principal) or default, "SSL")


async def _scitokens(conn: Connection, policy: SecurityPolicy) -> Proven | None:
    """SCITOKENS: the token's `issuer,subject` as the map file maps it (unmapped, the
    method fails, as HTCondor's does, so that another may be tried); its condor scopes
    bound the levels it may use. A certificate the client may show is not asked about:
    the token is who it is."""
    names: list[str] = []

    async def verify(raw: bytes) -> object:
        verdict = policy.scitokens.verify(raw.decode("utf-8", "replace").strip())
        if verdict is None:
            return None
        name = mapped(policy, "SCITOKENS", verdict.name)
        if name is None:
            log.warning("SciToken %s: no map file line maps it", verdict.name)
            return None
        names.append(name)
        return verdict

    peer = await ssl_auth.authenticate(conn, policy.ssl_context, lambda _: True, verify)
    if peer is None or not names:
        return None
    verdict = peer.token
    assert isinstance(verdict, scitokens.Verdict)
    attrs = security.token_attrs(verdict.subject, verdict.issuer, verdict.token_id, verdict.scopes)
    if verdict.groups:
        attrs["AuthTokenGroups"] = ",".join(verdict.groups)
    return Proven(names[0], "SCITOKENS", levels(verdict.authz), attrs)
