"""CEDAR's framing over TCP (HTCondor's `ReliSock`): messages made of packets, and the
AES-256-GCM protection of each packet once a session key is in force.

A packet is `[end flag: 1 byte][length: 4 bytes, big-endian][payload]`; a message is
the packets up to one whose end flag is not 0. A receiver takes end flags 0 to 10 and
lengths 1 to 1 MiB, as HTCondor's does.

Until encryption starts, each side keeps a SHA-256 digest of every byte it sent and
received (headers included). With AES-GCM on, each packet's payload is
`[IV, first packet only][ciphertext][16-byte tag]`; packet n of a direction uses that
direction's IV with n added to its first 4 bytes (big-endian), and the tag covers the
header, and, on the first packet each way, both handshake digests before it (the
sender's sent digest first), so nobody can have rewritten the clear handshake.
"""

from __future__ import annotations

import hashlib
import math
import os
import struct

import trio
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from condorx.transport.cedar.codec import CedarError

HEADER = struct.Struct(">BI")
MAX_PACKET = 1024 * 1024
# Plaintext per outgoing packet: the ciphertext stays well inside a peer's 1 MiB limit.
SEND_CHUNK = 256 * 1024
IV_SIZE = 16
TAG_SIZE = 16
# HTCondor stops hashing the handshake after 1 MiB.
_DIGEST_LIMIT = 1024 * 1024
# Bytes already in the socket, or room in it, need no trip through the scheduler: the
# socket is read and written directly. The scheduler still gets its turn every this many
# messages, so one busy client (its messages all there) cannot keep the others waiting.
_DIRECT_TURNS = 32


class Closed(CedarError):
    """The peer closed the connection between messages."""


class _Direction:
    """One direction's AES-GCM state: its IV and how many packets it has carried."""

    def __init__(self, iv: bytes | None) -> None:
        self.iv = iv
        self.count = 0

    def next_iv(self) -> bytes:
        assert self.iv is not None
        if self.count >= 0xFFFFFFFF:
            raise CedarError("a session's IV counter is spent")
        base = int.from_bytes(self.iv[:4], "big")
        head = ((base + self.count) & 0xFFFFFFFF).to_bytes(4, "big")
        self.count += 1
        return head + self.iv[4:]


def _fd_of(stream: trio.abc.Stream) -> int | None:
    """The socket under a TCP stream (None for any other stream: tests' memory pipes)."""
    sock = getattr(stream, "socket", None)
    try:
        return int(sock.fileno()) if sock is not None else None
    except (OSError, ValueError):
        return None


class Connection:
    """Whole messages in and out of one CEDAR connection."""

    def __init__(self, stream: trio.abc.Stream, first: bytes = b"", max_message: int = 0) -> None:
        self.stream = stream
        self._fd = _fd_of(stream)
        self._turns = 0
        self._buf = bytearray(first)
        # Bytes a whole message may hold; the caller raises it after authentication.
        self.max_message = max_message or 64 * 1024
        # How long a peer may leave the connection silent while a message is awaited.
        self.idle = math.inf
        self._sent = hashlib.sha256()
        self._received = hashlib.sha256()
        self._sent_bytes = 0
        self._received_bytes = 0
        self._aes: AESGCM | None = None
        self._digests: tuple[bytes, bytes] | None = None
        self._out = _Direction(None)
        self._in = _Direction(None)

    @property
    def encrypted(self) -> bool:
        return self._aes is not None

    def start_encryption(self, key: bytes) -> None:
        """From now on every packet is sealed with AES-256-GCM under `key`."""
        self._aes = AESGCM(key)
        # Both transcripts end here: what each side saw in the clear.
        self._digests = (self._sent.digest(), self._received.digest())
        self._out = _Direction(os.urandom(IV_SIZE))
        self._in = _Direction(None)

    # ---- receiving ---------------------------------------------------------------------

    async def _fill(self, n: int) -> None:
        while len(self._buf) < n:
            want = max(65536, n - len(self._buf))
            chunk: bytes | bytearray | None = self._read_now(want)
            if chunk is None:
                self._turns = 0
                chunk = b""
                try:
                    with trio.move_on_after(self.idle) as silent:
                        chunk = await self.stream.receive_some(want)
                except trio.BrokenResourceError as e:
                    raise Closed(f"connection broken: {e}") from None
                if silent.cancelled_caught:
                    raise CedarError(f"the peer said nothing for {self.idle:g} s")
            if not chunk:
                if not self._buf:
                    raise Closed("connection closed by peer")
                raise CedarError("connection closed by peer in the middle of a packet")
            self._buf += chunk

    def _read_now(self, n: int) -> bytes | None:
        """What the socket holds now (b"": the peer closed), or None: wait for it."""
        if self._fd is None:
            return None
        try:
            return os.read(self._fd, n)
        except BlockingIOError:
            return None
        except OSError as e:
            raise Closed(f"connection broken: {e}") from None

    def _write_now(self, data: bytes) -> int:
        """How much of `data` the socket took now (the rest waits for room)."""
        if self._fd is None:
            return 0
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return 0
        except OSError as e:
            raise trio.BrokenResourceError(f"connection broken: {e}") from None

    async def _turn(self) -> None:
        """Every _DIRECT_TURNS messages, let the scheduler run the other tasks."""
        self._turns += 1
        if self._turns >= _DIRECT_TURNS:
            self._turns = 0
            await trio.lowlevel.checkpoint()

    async def receive(self) -> bytes:
        """The next whole message."""
        await self._turn()
        parts: list[bytes] = []
        size = 0
        while True:
            await self._fill(HEADER.size)
            header = bytes(self._buf[: HEADER.size])
            end, length = HEADER.unpack(header)
            if end > 10 or length < 1 or length > MAX_PACKET:
                raise CedarError(f"a packet header that is not CEDAR's (end {end}, {length} bytes)")
            await self._fill(HEADER.size + length)
            payload = bytes(self._buf[HEADER.size : HEADER.size + length])
            del self._buf[: HEADER.size + length]
            if self._aes is None:
                if self._received_bytes < _DIGEST_LIMIT:
                    self._received.update(header)
                    self._received.update(payload)
                self._received_bytes += HEADER.size + length
            else:
                payload = self._open(header, payload)
            size += len(payload)
            if size > self.max_message:
                raise CedarError(f"a message over {self.max_message} bytes")
            parts.append(payload)
            if end != 0:
                return b"".join(parts)

    async def receive_raw(self, n: int) -> bytes:
        """`n` bytes straight off the stream, outside any packet: a file's body when
        nothing is encrypted (HTCondor's put_file without a session key)."""
        if self._aes is not None:
            raise CedarError("raw bytes on an encrypted connection")
        await self._fill(n)
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def _open(self, header: bytes, payload: bytes) -> bytes:
        assert self._aes is not None and self._digests is not None
        aad = header
        if self._in.iv is None:
            if len(payload) < IV_SIZE + TAG_SIZE:
                raise CedarError("an encrypted packet too short for its IV and tag")
            self._in.iv, payload = payload[:IV_SIZE], payload[IV_SIZE:]
            sent, received = self._digests
            aad = received + sent + header
        elif len(payload) < TAG_SIZE:
            raise CedarError("an encrypted packet too short for its tag")
        try:
            return self._aes.decrypt(self._in.next_iv(), payload, aad)
        except InvalidTag:
            raise CedarError("a packet failed its integrity check") from None

    # ---- sending -----------------------------------------------------------------------

    async def send(self, body: bytes) -> None:
        """One whole message (an empty one sends nothing, as HTCondor's does)."""
        out = bytearray()
        for start in range(0, len(body), SEND_CHUNK):
            chunk = body[start : start + SEND_CHUNK]
            last = start + SEND_CHUNK >= len(body)
            out += self._packet(chunk, 1 if last else 0)
        if out:
            await self._turn()
            data = bytes(out)
            sent = self._write_now(data)
            if sent < len(data):
                self._turns = 0
                await self.stream.send_all(data[sent:])

    async def send_raw(self, data: bytes) -> None:
        """Bytes straight onto the stream, outside any packet (see `receive_raw`)."""
        if self._aes is not None:
            raise CedarError("raw bytes on an encrypted connection")
        self._turns = 0
        await self.stream.send_all(data)

    def _packet(self, chunk: bytes, end: int) -> bytes:
        if self._aes is None:
            packet = HEADER.pack(end, len(chunk)) + chunk
            if self._sent_bytes < _DIGEST_LIMIT:
                self._sent.update(packet)
            self._sent_bytes += len(packet)
            return packet
        assert self._digests is not None
        first = self._out.count == 0
        lead = self._out.iv if first else b""
        assert lead is not None
        header = HEADER.pack(end, len(lead) + len(chunk) + TAG_SIZE)
        aad = (self._digests[0] + self._digests[1] + header) if first else header
        sealed = self._aes.encrypt(self._out.next_iv(), chunk, aad)
        return header + lead + sealed

    async def aclose(self) -> None:
        await self.stream.aclose()
