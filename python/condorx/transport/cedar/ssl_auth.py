"""The daemon's side of HTCondor's SSL authentication method (and of SCITOKENS, which
rides on it): a TLS handshake tunnelled through CEDAR messages, as HTCondor's
`condor_auth_ssl.cpp` runs it, over Python's `ssl` with memory BIOs.

1. Each side states whether it is ready: `[status]` (0 ready, -1 not), the daemon first.
2. The handshake, in lockstep: the daemon steps its TLS state, then on even rounds
   receives and on odd rounds sends one message `[status][length][TLS bytes]`, the
   status SENDING 1, RECEIVING 2, QUITTING 3 or HOLDING 4 (done). Both HOLDING ends it.
3. The daemon writes a 256-byte random session key through TLS (HTCondor's legacy 3DES
   key: the connection's own key is agreed by ECDH, so it serves nothing else), sending
   on even rounds now, until both hold.
4. SCITOKENS only: the client writes `[4-byte big-endian length][token]` through TLS;
   the daemon verifies it (`condorx.transport.cedar.scitokens`), receiving on even rounds.

The client's name is its certificate's subject as OpenSSL's one-line form writes it
(`/C=US/O=Example/CN=Alice`), "unauthenticated" without one, and a SciToken's
`issuer,subject`; the map file (CERTIFICATE_MAPFILE, methods SSL and SCITOKENS) turns
it into the pool's name.
"""

from __future__ import annotations

import logging
import os
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from condorx.language.config import Config
from condorx.transport.cedar.codec import Reader, Writer
from condorx.transport.cedar.packets import Connection

log = logging.getLogger("condorx.security")

ERROR, OK, SENDING, RECEIVING, QUITTING, HOLDING = -1, 0, 1, 2, 3, 4
BUF_SIZE = 1024 * 1024  # the most TLS bytes one message may carry (AUTH_SSL_BUF_SIZE)
SESSION_KEY_LEN = 256
MAX_ROUNDS = 256


@dataclass(frozen=True)
class Peer:
    """Who the client proved to be: its certificate's subject ("" for none), and a
    SciToken's verdict when one was asked for."""

    subject: str
    token: object = None


class _Tunnel:
    """One TLS state and the CEDAR messages that carry its bytes."""

    def __init__(self, conn: Connection, context: ssl.SSLContext) -> None:
        self.conn = conn
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_side=True)

    async def send(self, status: int) -> None:
        data = self.outgoing.read(BUF_SIZE)
        out = Writer(self.conn.encrypted).integer(status).integer(len(data)).raw(data)
        await self.conn.send(out.bytes())

    async def receive(self) -> int:
        msg = Reader(await self.conn.receive(), self.conn.encrypted)
        status, length = msg.integer(), msg.integer()
        if not 0 <= length <= BUF_SIZE:
            raise ssl.SSLError(f"a TLS message of {length} bytes")
        data = msg.take(length)
        if data:
            self.incoming.write(data)
        return status

    def step(self, action: Callable[[], object]) -> int:
        """Run one TLS action; the status it leaves this side in."""
        try:
            action()
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return RECEIVING
        except ssl.SSLError as e:
            log.info("SSL authentication: %s", e)
            return QUITTING
        return HOLDING


Verify = Callable[[bytes], Awaitable[object]]


async def authenticate(
    conn: Connection,
    context: ssl.SSLContext | None,
    accept: Callable[[str], bool],
    verify_token: Verify | None = None,
) -> Peer | None:
    """Run the method with `context` (None: this daemon cannot serve it, and says so);
    `accept` judges the client's certificate subject ("" for none) once the handshake
    is done; with `verify_token`, as SCITOKENS. Who the client is, or None."""
    await conn.send(Writer(conn.encrypted).integer(OK if context else ERROR).bytes())
    client = Reader(await conn.receive(), conn.encrypted).integer()
    if context is None or client != OK:
        return None
    tunnel = _Tunnel(conn, context)
    try:
        if not await _handshake(tunnel):
            return None
        subject = _subject(tunnel.tls)
        if not accept(subject):
            await tunnel.send(QUITTING)  # HTCondor's daemon tells the client it bails
            return None
        if not await _send_key(tunnel):
            return None
        if verify_token is None:
            return Peer(subject)
        verdict = await _receive_token(tunnel, verify_token)
        return None if verdict is None else Peer(subject, verdict)
    except ssl.SSLError as e:
        log.info("SSL authentication failed: %s", e)
        return None


async def _handshake(tunnel: _Tunnel) -> bool:
    server, client, rounds = RECEIVING, RECEIVING, 0
    while True:
        if server != HOLDING:
            server = tunnel.step(tunnel.tls.do_handshake)
        # The round's message goes either way, as in HTCondor's loop: a daemon that is
        # quitting says so on a sending round.
        if rounds % 2 == 0:
            client = await tunnel.receive()
        else:
            await tunnel.send(server)
        rounds += 1
        if QUITTING in (server, client) or client == ERROR or rounds > MAX_ROUNDS:
            return False
        if client == HOLDING and server == HOLDING:
            return True


async def _send_key(tunnel: _Tunnel) -> bool:
    key = os.urandom(SESSION_KEY_LEN)
    server, client, rounds = RECEIVING, RECEIVING, 0
    while not (server == HOLDING and client == HOLDING):
        if rounds > MAX_ROUNDS:
            return False
        if server != HOLDING:
            server = tunnel.step(lambda: tunnel.tls.write(key))
        if rounds % 2 == 0:
            await tunnel.send(server)
        else:
            client = await tunnel.receive()
        rounds += 1
        if QUITTING in (server, client) or client == ERROR:
            return False
    return True


async def _receive_token(tunnel: _Tunnel, verify: Verify) -> object:
    """The client's SciToken, read through TLS and verified: the verifier's verdict, or
    None (the client is told it failed)."""
    server, client, rounds = RECEIVING, RECEIVING, 0
    buf = bytearray()
    verdict: object = None
    while not (server == HOLDING and client == HOLDING):
        if rounds > MAX_ROUNDS:
            return None
        if server != HOLDING:
            server, token = _read_token(tunnel, buf)
            if token is not None:
                verdict = await verify(token)
                server = HOLDING if verdict is not None else QUITTING
        if rounds % 2 == 1:
            await tunnel.send(server)
        else:
            client = await tunnel.receive()
        rounds += 1
        if server == QUITTING or client in (ERROR, QUITTING):
            return None
    return verdict


def _read_token(tunnel: _Tunnel, buf: bytearray) -> tuple[int, bytes | None]:
    """What TLS has of `[length][token]` so far: RECEIVING until it is whole."""
    while True:
        try:
            chunk = tunnel.tls.read(BUF_SIZE)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            break
        except ssl.SSLError as e:
            log.info("SciToken: %s", e)
            return QUITTING, None
        if not chunk:
            break
        buf += chunk
    if len(buf) < 4:
        return RECEIVING, None
    length = int.from_bytes(buf[:4], "big")
    if not 0 < length <= BUF_SIZE:
        log.info("SciToken: a token of %d bytes refused", length)
        return QUITTING, None
    if len(buf) < 4 + length:
        return RECEIVING, None
    return HOLDING, bytes(buf[4 : 4 + length])


# OpenSSL's short names in X509_NAME_oneline, by dotted OID.
_SHORT = {
    "2.5.4.3": "CN",
    "2.5.4.6": "C",
    "2.5.4.7": "L",
    "2.5.4.8": "ST",
    "2.5.4.10": "O",
    "2.5.4.11": "OU",
    "2.5.4.5": "serialNumber",
    "2.5.4.4": "SN",
    "2.5.4.42": "GN",
    "2.5.4.12": "title",
    "1.2.840.113549.1.9.1": "emailAddress",
    "0.9.2342.19200300.100.1.25": "DC",
    "0.9.2342.19200300.100.1.1": "UID",
}


def _subject(tls: ssl.SSLObject) -> str:
    """The client certificate's subject as OpenSSL writes it on one line ("" if none)."""
    der = tls.getpeercert(binary_form=True)
    if not der:
        return ""
    from cryptography import x509

    cert = x509.load_der_x509_certificate(der)
    parts = []
    for rdn in cert.subject.rdns:
        for attr in rdn:
            oid = attr.oid.dotted_string
            name = _SHORT.get(oid) or getattr(attr.oid, "_name", None) or oid
            value = attr.value if isinstance(attr.value, str) else attr.value.hex()
            parts.append(f"/{name}={value}")
    return "".join(parts)


def server_context(files: ServerFiles) -> ssl.SSLContext | None:
    """A TLS context for the daemon's side, or None when it has no certificate to show.
    A client's certificate is asked for and checked against the CAs, not required
    (OpenSSL's SSL_VERIFY_PEER on a server, as HTCondor sets it)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    loaded = False
    for cert, key in files.pairs:
        if os.access(cert, os.R_OK) and os.access(key, os.R_OK):
            try:
                ctx.load_cert_chain(cert, key)
            except (ssl.SSLError, OSError) as e:
                log.error("SSL: cannot load %s and %s: %s", cert, key, e)
                return None
            loaded = True
    if not loaded:
        return None
    ctx.verify_mode = ssl.CERT_OPTIONAL
    try:
        if files.cafile or files.cadir:
            ctx.load_verify_locations(cafile=files.cafile, capath=files.cadir)
        if files.default_cas:
            ctx.load_default_certs(ssl.Purpose.CLIENT_AUTH)
    except (ssl.SSLError, OSError) as e:
        log.error("SSL: cannot load the CAs (%s, %s): %s", files.cafile, files.cadir, e)
        return None
    return ctx


def server_files(cfg: Config) -> ServerFiles:
    """AUTH_SSL_SERVER_CERTFILE and _KEYFILE (lists, paired in order), _CAFILE (a list:
    the last readable one), _CADIR and _USE_DEFAULT_CAS."""
    certs = _listed(cfg.get("AUTH_SSL_SERVER_CERTFILE"))
    keys = _listed(cfg.get("AUTH_SSL_SERVER_KEYFILE"))
    cafiles = [f for f in _listed(cfg.get("AUTH_SSL_SERVER_CAFILE")) if os.access(f, os.R_OK)]
    return ServerFiles(
        tuple(zip(certs, keys, strict=False)),
        cafiles[-1] if cafiles else None,
        cfg.get("AUTH_SSL_SERVER_CADIR") or None,
        cfg.get_bool("AUTH_SSL_SERVER_USE_DEFAULT_CAS", True),
    )


def _listed(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


@dataclass(frozen=True)
class ServerFiles:
    """What AUTH_SSL_SERVER_* name: certificate and key pairs (each readable pair is
    loaded), the CA file (the last readable one of its list) and directory."""

    pairs: tuple[tuple[str, str], ...]
    cafile: str | None
    cadir: str | None
    default_cas: bool
