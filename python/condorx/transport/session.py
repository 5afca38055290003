"""A connection's protection after the token handshake: encryption and integrity, as
HTCondor's SEC_DEFAULT_ENCRYPTION and SEC_DEFAULT_INTEGRITY ask for them.

Both ends of a token handshake hold the same secret (the token's, which the daemon
recomputes from the pool key), and each sent a fresh nonce. HKDF turns them into one key
per direction, and every frame after the handshake is sealed with ChaCha20-Poly1305 under
its direction's key and a per-direction counter as the nonce: a frame that is altered,
replayed, dropped or reordered fails to open. With integrity alone the frame travels in
the clear and carries only the Poly1305 tag over it.

Each side states a level (REQUIRED, PREFERRED, OPTIONAL, NEVER) per property; the daemon
decides from both, and says what it decided in a reply sealed with the session key, so a
stranger who rewrites the clear handshake can neither lower the protection nor pass for
the daemon.
"""

from __future__ import annotations

from enum import Enum

from condorx.errors import CondorxError
from condorx.language.config import Config
from condorx.record import record

# hashlib, hmac and secrets are imported by the functions that use them: a tool on the
# schedd's local socket uses none, and loading OpenSSL was 2 ms of its every run.

TAG = 16  # bytes of Poly1305 tag a sealed frame carries


class ProtectionError(CondorxError):
    """The two ends' protection levels cannot be met, or a sealed frame failed to open."""


class Level(Enum):
    REQUIRED = "REQUIRED"
    PREFERRED = "PREFERRED"
    OPTIONAL = "OPTIONAL"
    NEVER = "NEVER"

    @classmethod
    def parse(cls, text: str | None, default: Level, knob: str = "") -> Level:
        if not text:
            return default
        try:
            return cls(text.strip().upper())
        except ValueError:
            raise ProtectionError(
                f"{knob or 'protection level'}: {text!r} is not one of "
                "REQUIRED, PREFERRED, OPTIONAL, NEVER"
            ) from None


def _decide(what: str, daemon: Level, client: Level) -> bool:
    """HTCondor's rule: on when either side wants it and neither forbids it."""
    levels = (daemon, client)
    if Level.NEVER in levels:
        if Level.REQUIRED in levels:
            side = "the daemon" if daemon is Level.REQUIRED else "the client"
            raise ProtectionError(f"{side} requires {what} and the other side never uses it")
        return False
    return Level.REQUIRED in levels or Level.PREFERRED in levels


@record(frozen=True)
class Policy:
    """What one side asks of a connection's protection."""

    encryption: Level = Level.REQUIRED
    integrity: Level = Level.REQUIRED

    @classmethod
    def from_config(cls, cfg: Config, context: str = "DEFAULT") -> Policy:
        """SEC_<context>_ENCRYPTION / _INTEGRITY, else SEC_DEFAULT_*; both default to
        REQUIRED, as HTCondor's recommended security configuration sets them."""

        def level(prop: str) -> Level:
            knob = f"SEC_{context}_{prop}"
            text = cfg.get(knob) or cfg.get(f"SEC_DEFAULT_{prop}")
            return Level.parse(text, Level.REQUIRED, knob)

        return cls(level("ENCRYPTION"), level("INTEGRITY"))

    def terms(self) -> bytes:
        """The policy as the client's proof covers it."""
        return f"{self.encryption.value}/{self.integrity.value}".encode()

    def to_wire(self) -> dict[str, str]:
        return {"encryption": self.encryption.value, "integrity": self.integrity.value}

    @classmethod
    def from_wire(cls, data: object) -> Policy:
        if not isinstance(data, dict):
            return cls(Level.OPTIONAL, Level.OPTIONAL)  # a peer that states nothing
        enc, mac = data.get("encryption"), data.get("integrity")
        return cls(
            Level.parse(enc if isinstance(enc, str) else None, Level.OPTIONAL, "encryption"),
            Level.parse(mac if isinstance(mac, str) else None, Level.OPTIONAL, "integrity"),
        )


class Mode(Enum):
    """What a connection gets after the handshake."""

    CLEAR = "clear"
    INTEGRITY = "integrity"
    ENCRYPTED = "encrypted"  # ChaCha20-Poly1305 protects integrity as well


def negotiate(daemon: Policy, client: Policy) -> Mode:
    """The daemon's decision; ProtectionError when the two cannot agree."""
    if _decide("encryption", daemon.encryption, client.encryption):
        if daemon.integrity is Level.NEVER or client.integrity is Level.NEVER:
            # Encryption here always authenticates too: it cannot honour NEVER.
            raise ProtectionError("encryption is wanted but integrity is refused")
        return Mode.ENCRYPTED
    if _decide("integrity", daemon.integrity, client.integrity):
        return Mode.INTEGRITY
    return Mode.CLEAR


def accepts(client: Policy, mode: Mode) -> bool:
    """Whether the client may live with what the daemon decided."""
    if client.encryption is Level.REQUIRED and mode is not Mode.ENCRYPTED:
        return False
    if client.integrity is Level.REQUIRED and mode is Mode.CLEAR:
        return False
    if client.encryption is Level.NEVER and mode is Mode.ENCRYPTED:
        return False
    return not (client.integrity is Level.NEVER and mode is not Mode.CLEAR)


@record(frozen=True)
class Keys:
    """The session keys both ends derive from the handshake."""

    to_daemon: bytes
    to_client: bytes

    @classmethod
    def derive(cls, secret: bytes, daemon_nonce: bytes, client_nonce: bytes, user: str) -> Keys:
        # cryptography is loaded when a connection needs it: a tool on the schedd's local
        # socket never does.
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF

        hkdf = HKDF(
            algorithm=hashes.SHA256(),
            length=64,
            salt=daemon_nonce + client_nonce,
            info=b"condorx-session\0" + user.encode(),
        )
        material = hkdf.derive(secret)
        return cls(material[:32], material[32:])

    def acceptance(self, mode: Mode, user: str) -> bytes:
        """The daemon's proof, in its reply, of the mode it decided (and that it is the
        daemon: only it and the client can compute this)."""
        import hashlib
        import hmac

        msg = b"condorx-accept\0" + mode.value.encode() + b"\0" + user.encode()
        return hmac.new(self.to_client, msg, hashlib.sha256).digest()


class Session:
    """Seals and opens one connection's frames, in order, for one side."""

    def __init__(self, send_key: bytes, receive_key: bytes, mode: Mode) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

        self.mode = mode
        self._send = ChaCha20Poly1305(send_key)
        self._receive = ChaCha20Poly1305(receive_key)
        self._sent = 0
        self._received = 0

    @classmethod
    def for_daemon(cls, keys: Keys, mode: Mode) -> Session:
        return cls(keys.to_client, keys.to_daemon, mode)

    @classmethod
    def for_client(cls, keys: Keys, mode: Mode) -> Session:
        return cls(keys.to_daemon, keys.to_client, mode)

    def seal(self, body: bytes) -> bytes:
        nonce = self._sent.to_bytes(12, "big")
        self._sent += 1
        if self.mode is Mode.ENCRYPTED:
            return self._send.encrypt(nonce, body, None)
        return body + self._send.encrypt(nonce, b"", body)

    def open(self, data: bytes) -> bytes:
        from cryptography.exceptions import InvalidTag

        nonce = self._received.to_bytes(12, "big")
        self._received += 1
        if len(data) < TAG:
            raise ProtectionError("a protected message is too short to carry its tag")
        try:
            if self.mode is Mode.ENCRYPTED:
                return self._receive.decrypt(nonce, data, None)
            body = data[:-TAG]
            self._receive.decrypt(nonce, data[-TAG:], body)
            return body
        except InvalidTag:
            raise ProtectionError("a message failed its integrity check") from None
