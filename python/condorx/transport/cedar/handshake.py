"""The daemon's side of DC_AUTHENTICATE (HTCondor's `DaemonCommandProtocol`): deciding a
connection's security from both sides' policies, authenticating, the ECDH key, and the
session cache that lets a client's next command skip all of it.

1. The client sends its policy ad (literals only). A `UseSession = "YES"` ad names a
   cached session: it is resumed, or refused with `SID_NOT_FOUND`.
2. Otherwise the daemon reconciles the policies (HTCondor's table: REQUIRED, PREFERRED,
   OPTIONAL, NEVER on each side), answers with its decision when the client asked for
   it (`Enact = "NO"`), and authenticates when the decision says so, then sends the
   `hasKey = 0` message (the key comes from ECDH, not from the daemon).
3. The session key is HKDF-SHA256 of the ECDH secret (salt "htcondor", info "keygen");
   with encryption on, every packet after this is AES-256-GCM.
4. A new session ends with the post-authentication ad: who the peer is, the session's
   id, the commands it may be reused for, and whether this command is authorized.
"""

from __future__ import annotations

import base64
import os
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from condorx.classad import ClassAd
from condorx.record import replace
from condorx.transport.cedar import auth
from condorx.transport.cedar.codec import PRE_AUTH_EXPRS, CedarError, Reader, Writer
from condorx.transport.cedar.commands import Cmd
from condorx.transport.cedar.packets import Connection
from condorx.transport.cedar.policy import DENIED, Decision, SecurityPolicy, reconcile
from condorx.version import version_string

# The version condorx claims: it decides what HTCondor's clients send (private
# attributes from 9.9, late materialization from 8.7.1).
VERSION = version_string()


@dataclass
class Session:
    """A security session a client may resume on its next connections."""

    sid: str
    key: bytes | None
    encrypt: bool
    name: str | None  # the authenticated name, user or user@domain; None: nobody proved
    method: str
    commands: frozenset[int]
    expires: float
    lease: float
    # The permission levels a token's scopes limit it to (None: no limit).
    limits: frozenset[str] | None = None
    last_used: float = field(default_factory=time.monotonic)
    token: dict[str, str] = field(default_factory=dict)  # what its token said (AuthToken*)

    def alive(self, now: float) -> bool:
        return now < self.expires and (not self.lease or now < self.last_used + self.lease)


class Sessions:
    """The daemon's session cache, by id."""

    def __init__(self) -> None:
        self._by_id: dict[str, Session] = {}
        self._serial = 0

    def new_id(self) -> str:
        self._serial += 1
        return f"{socket.gethostname()}:{os.getpid()}:{int(time.time())}:{self._serial}"

    def add(self, session: Session) -> None:
        now = time.monotonic()
        if len(self._by_id) > 1000:  # now and then, drop the dead
            self._by_id = {k: s for k, s in self._by_id.items() if s.alive(now)}
        self._by_id[session.sid] = session

    def resume(self, sid: str) -> Session | None:
        session = self._by_id.get(sid)
        now = time.monotonic()
        if session is None or not session.alive(now):
            self._by_id.pop(sid, None)
            return None
        session.last_used = now
        return session


@dataclass(frozen=True)
class Outcome:
    """A handshake that let the command through: for `command`, as `session` says."""

    command: int
    session: Session
    new: bool
    # What the client sent DC_AUTHENTICATE for: a command (then `command`), or only to
    # authenticate (DC_AUTHENTICATE) or to ask whether it may (DC_SEC_QUERY, a ping).
    real: int = 0


class Handshake:
    """One daemon's DC_AUTHENTICATE: its policies, the commands it knows, its sessions."""

    def __init__(
        self,
        policy: SecurityPolicy,
        sessions: Sessions,
        known: dict[int, tuple[str, bool]],
        allowed: Callable[[int, str | None, str], bool],
    ) -> None:
        self.policy = policy
        self.sessions = sessions
        # command -> (HTCondor permission level, whether it forces authentication)
        self.known = known
        # Whether an identity (None: nobody proven) at an address may run a command.
        self.allowed = allowed

    async def run(
        self, conn: Connection, msg: Reader, local: tuple[str, int], address: str = ""
    ) -> Outcome | None:
        """The rest of a DC_AUTHENTICATE whose command int `msg` has given (from the peer
        at `address`); None when the connection is to be closed (refused, or a
        resumption of an unknown id)."""
        ad = msg.classad(PRE_AUTH_EXPRS, literals_only=True)
        real = command = _int(ad, "Command")
        if command in (Cmd.DC_AUTHENTICATE, Cmd.DC_SEC_QUERY):
            command = _int(ad, "AuthCommand")
        if command not in self.known:
            return None
        if _yes(ad, "UseSession"):
            outcome = await self._resume(conn, ad, command)
        else:
            perm, forced = self.known[command]
            ours = self.policy.for_level(perm, forced)
            decision = reconcile(ad, ours, self.policy.trust_domain)
            if decision is None:
                return None
            outcome = await self._new(conn, ad, command, decision, local, address)
        return None if outcome is None else replace(outcome, real=real)

    async def _resume(self, conn: Connection, ad: ClassAd, command: int) -> Outcome | None:
        session = self.sessions.resume(_str(ad, "Sid"))
        wants_reply = ad.get("ResumeResponse") is True
        if session is None:
            if wants_reply:
                reply = ClassAd({"ReturnCode": "SID_NOT_FOUND"})
                await conn.send(Writer().classad(reply).bytes())
            return None
        if wants_reply:
            nonce = base64.b64encode(secrets.token_bytes(33)).decode()
            reply = ClassAd({"ReturnCode": "AUTHORIZED", "RemoteVersion": VERSION, "Nonce": nonce})
            await conn.send(Writer().classad(reply).bytes())
        if session.encrypt and session.key is not None:
            conn.start_encryption(session.key)
        if command not in session.commands:
            return None
        return Outcome(command, session, new=False)

    async def _new(
        self,
        conn: Connection,
        ad: ClassAd,
        command: int,
        decision: Decision,
        local: tuple[str, int],
        address: str,
    ) -> Outcome | None:
        peer_key = _str(ad, "ECDHPublicKey")
        private: ec.EllipticCurvePrivateKey | None = None
        if peer_key and decision.crypto:
            private = ec.generate_private_key(ec.SECP256R1())
            point = private.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
            decision.ad["ECDHPublicKey"] = base64.b64encode(point).decode()
        decision.ad["RemoteVersion"] = VERSION
        if ad.get("Enact") == "NO":
            await conn.send(Writer().classad(decision.ad).bytes())
        name: str | None = None
        method = ""
        limits: frozenset[str] | None = None
        token: dict[str, str] = {}
        if decision.authenticate:
            found = await auth.authenticate(conn, decision.methods, local, self.policy)
            if found is not None:
                name, method, limits, token = found.name, found.method, found.limits, found.token
                # The key travels by ECDH, not from the daemon: none to send.
                await conn.send(Writer().integer(0).bytes())
            elif decision.auth_required:
                return None
        key = _derive(private, peer_key) if private is not None else None
        if decision.encrypt and key is None:
            raise CedarError("encryption was decided but no key was agreed")
        # An AES-GCM key, once agreed, seals every packet whatever was decided: HTCondor's
        # clients turn it on with the key.
        if key is not None:
            conn.start_encryption(key)
        sid = self.sessions.new_id()
        perm, forced = self.known[command]
        proved = decision.authenticate and name is not None
        commands = self._valid_commands(name, proved, perm, limits, address)
        authorized = (
            (not forced or name is not None)
            and _within(perm, limits)
            and self.allowed(command, name, address)
        )
        post = ClassAd(
            {
                "Sid": sid,
                "ValidCommands": ",".join(str(c) for c in sorted(commands)),
                "ReturnCode": "AUTHORIZED" if authorized else DENIED,
            }
        )
        if name is not None:
            post["User"] = _qualified(name, self.policy.uid_domain)
        if decision.authenticate:
            post["TriedAuthentication"] = True
        await conn.send(Writer(conn.encrypted).classad(post).bytes())
        if not authorized:
            return None
        session = Session(
            sid,
            key,
            key is not None,
            name,
            method,
            frozenset(commands),
            time.monotonic() + decision.duration,
            decision.lease,
            limits,
            token=token,
        )
        self.sessions.add(session)
        return Outcome(command, session, new=True)

    def _valid_commands(
        self,
        name: str | None,
        proved: bool,
        perm: str,
        limits: frozenset[str] | None,
        address: str,
    ) -> set[int]:
        """The commands of this permission level that this session may be reused for."""
        out = set()
        for cmd, (level, forced) in self.known.items():
            if level not in (perm, "ALLOW") or (forced and not proved):
                continue
            if not _within(level, limits):
                continue
            if self.allowed(cmd, name, address):
                out.add(cmd)
        return out


def _within(level: str, limits: frozenset[str] | None) -> bool:
    """Whether a token's limits (if any) let its holder use this permission level."""
    return limits is None or level == "ALLOW" or level in limits


def _derive(private: ec.EllipticCurvePrivateKey, peer_b64: str) -> bytes:
    try:
        point = base64.b64decode(peer_b64, validate=False)
        peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise CedarError("the peer's ECDH public key is not a P-256 point") from None
    shared = private.exchange(ec.ECDH(), peer)
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"htcondor", info=b"keygen")
    return hkdf.derive(shared)


def _qualified(name: str, domain: str) -> str:
    return name if "@" in name else f"{name}@{domain}"


def _int(ad: ClassAd, attr: str) -> int:
    value = ad.get(attr)
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _str(ad: ClassAd, attr: str) -> str:
    value = ad.get(attr)
    return value if isinstance(value, str) else ""


def _yes(ad: ClassAd, attr: str) -> bool:
    return _str(ad, attr).upper() == "YES"
