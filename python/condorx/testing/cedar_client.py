"""A small CEDAR client, for tests that must do what HTCondor's clients would not: stop
half way, send bytes that are wrong, resume a session that does not exist. Everything
it sends follows `condorx.transport.cedar` (and HTCondor's own clients, which the other tests run,
agree with that)."""

from __future__ import annotations

import base64
import os
import shutil
from dataclasses import dataclass

import trio
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from condorx.classad import ClassAd
from condorx.transport.cedar.codec import Reader, Writer
from condorx.transport.cedar.commands import AuthBit, Cmd
from condorx.transport.cedar.packets import Connection

VERSION = "$CondorVersion: 25.14.1 2026-09-24 BuildID: test $"


@dataclass
class Session:
    sid: str
    key: bytes | None
    post: ClassAd  # the post-authentication ad


async def open_connection(host: str, port: int) -> Connection:
    stream = await trio.open_tcp_stream(host, port)
    conn = Connection(stream, max_message=256 * 1024 * 1024)
    return conn


def _policy(command: int, authentication: str, methods: str, public: bytes) -> ClassAd:
    return ClassAd(
        {
            "Command": command,
            "Enact": "NO",
            "NewSession": "YES",
            "NegotiatedSession": True,
            "Authentication": authentication,
            "AuthenticationNew": authentication,
            "Encryption": "OPTIONAL",
            "Integrity": "OPTIONAL",
            "AuthMethods": methods,
            "CryptoMethods": "AES",
            "ECDHPublicKey": base64.b64encode(public).decode(),
            "RemoteVersion": VERSION,
            "SessionDuration": "60",
            "SessionLease": 3600,
            "Subsystem": "TOOL",
        }
    )


async def authenticate(
    conn: Connection, command: int, authentication: str = "OPTIONAL", methods: str = "FS"
) -> Session:
    """DC_AUTHENTICATE for `command`, as a stock client runs it (FS when authenticating),
    up to the post-authentication ad; the command's payload may follow."""
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    out = (
        Writer()
        .integer(Cmd.DC_AUTHENTICATE)
        .classad(_policy(command, authentication, methods, public))
    )
    await conn.send(out.bytes())
    decision = Reader(await conn.receive()).classad()
    if decision.get("Authentication") == "YES":
        await _fs(conn)
    key = None
    peer = decision.get("ECDHPublicKey")
    if isinstance(peer, str) and peer:
        point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), base64.b64decode(peer))
        shared = private.exchange(ec.ECDH(), point)
        hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"htcondor", info=b"keygen")
        key = hkdf.derive(shared)
        conn.start_encryption(key)
    post = Reader(await conn.receive(), conn.encrypted).classad()
    return Session(str(post.get("Sid") or ""), key, post)


async def _fs(conn: Connection) -> None:
    await conn.send(Writer().integer(AuthBit.FS).bytes())
    chosen = Reader(await conn.receive()).integer()
    if chosen != AuthBit.FS:
        raise RuntimeError(f"the daemon chose method {chosen}")
    directory = Reader(await conn.receive()).text()
    sock = conn.stream.socket  # type: ignore[attr-defined]
    host, port = sock.getpeername()[:2]
    ext = f"{host}:{port}"
    os.mkdir(directory + ext, 0o700)
    try:
        await conn.send(Writer().integer(0).string(ext).bytes())
        if Reader(await conn.receive()).integer() != 0:
            raise RuntimeError("FS authentication failed")
        if Reader(await conn.receive()).integer() != 0:  # hasKey
            raise RuntimeError("the daemon offered a key to exchange")
    finally:
        shutil.rmtree(directory + ext, ignore_errors=True)


async def resume(conn: Connection, command: int, session: Session) -> ClassAd:
    """Resume `session` for `command`: the daemon's answer (AUTHORIZED or SID_NOT_FOUND),
    with encryption on again when the session has a key."""
    ad = ClassAd(
        {
            "Command": command,
            "UseSession": "YES",
            "Sid": session.sid,
            "ResumeResponse": True,
            "CryptoMethods": "AES",
            "RemoteVersion": VERSION,
            "Nonce": base64.b64encode(os.urandom(33)).decode(),
        }
    )
    await conn.send(Writer().integer(Cmd.DC_AUTHENTICATE).classad(ad).bytes())
    answer = Reader(await conn.receive()).classad()
    if answer.get("ReturnCode") == "AUTHORIZED" and session.key is not None:
        conn.start_encryption(session.key)
    return answer


@dataclass
class Rpcs:
    """A queue-management connection: `rpc` sends a message and reads its answer, `send`
    sends one that has none (NoAck)."""

    conn: Connection

    async def rpc(self, w: Writer) -> Reader:
        await self.conn.send(w.bytes())
        return Reader(await self.conn.receive(), self.conn.encrypted)

    async def send(self, w: Writer) -> None:
        await self.conn.send(w.bytes())


async def qmgmt(host: str, port: int) -> Rpcs:
    """A QMGMT_WRITE_CMD connection, authenticated, ready for its RPCs."""
    conn = await open_connection(host, port)
    await authenticate(conn, Cmd.QMGMT_WRITE_CMD, "REQUIRED")
    return Rpcs(conn)
