"""HTCondor's IDTOKENS: tokens (JWTs signed with HS256 by a key derived from the pool
signing key) and the server's side of the TOKEN authentication method (AKEP2 over CEDAR
messages, HTCondor's `condor_auth_passwd.cpp` in its version 2).

The pool signing key file (SEC_TOKEN_POOL_SIGNING_KEY_FILE, passwords.d/POOL) holds the
key XORed with DE AD BE EF; HTCondor reads it, undoes that, and doubles it. The JWT key
is HKDF-SHA256(that, salt "htcondor", info "master jwt"), 32 bytes.

Authentication (the client speaks first):
1. client: [status][len(a)][a = the token's subject][header.payload][256][ra: 256 bytes]
2. the daemon recomputes the token's signature (it never travels), and from it the
   keys ka and kb (HKDF-SHA256, salt = a fixed 256-byte seed + header.payload, info
   "master ka" / "master kb"); it answers [status][len(a)][a][len(b)][b][256][ra]
   [256][rb][len][hkt = HMAC-SHA1(ka, "a b" NUL ra rb)]
3. client: [status][len(a)][a][256][rb][len][hk = HMAC-SHA1(ka, a NUL rb)]: only a
   holder of the signature can compute it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from condorx.cedar.codec import CedarError, Reader, Writer
from condorx.cedar.packets import Connection

KEY_LEN = 256  # the random challenges' length (AUTH_PW_KEY_LEN)
OK, ERROR = 0, -1
# The name the daemon gives itself in the exchange (HTCondor's CONDOR_PASSWORD_FQU).
SERVER_NAME = "condor@password"
_SCRAMBLE = bytes.fromhex("deadbeef")
# HTCondor's fixed seeds for ka and kb (setup_seed in condor_auth_passwd.cpp).
_SEED_KA = bytes.fromhex(
    "3e4a502047d5f4e5dc7c69bb5210cbb6167add8084f7dd9ef3ad2cca71d283dd"
    "114a4fbb7b1ee90adfa862c44304de5473a3172f735c2cbb6e775b5d40d39fac"
    "e873182523f9252b623be0d4b167a3a8040cacfee9ee3da02c0abbf4d9d8b11f"
    "89004c943923ce5d9508bb3f04bc66a3fa20a13a416c5e6f4e0d3187d45fc783"
    "35c5e485db2c5a3717970cc26e7b6b9d1965b47a67df77a31f22f08a6c0ba570"
    "97a21a9ca7c60424f72739ab5cb915a4185bd109828e35e42108ab851c08a3df"
    "fde0e3b06f3d3938cdad6df6ef9a6f6dc2cb74f0228512eb7a3d6823010684b0"
    "15c12ac3014c4f9f938e384dad1e3bd745ff8c141fd70b465ba8af5d1b98b4b1"
)
_SEED_KB = bytes.fromhex(
    "010026ad75dfc6c190a5a266b0d1b5d860f7cfa38467205501cd460d4a88d473"
    "fa52e0b3e9141e33c97d851eee2dd33632f3886768ef010ec8dfdd668ade92d5"
    "c34308bb243895d84ed785e27268cc5ee7560de49828fab766c2ad8c0b2c0afb"
    "435c382db5d2ff36a8aead5820470a9ad45d79856f5e2ece894bd2507929dcf2"
    "6f7d09f0028f1ac4d971f4820c5f54717e9dcdabeb215f61655dead4b72c3d3b"
    "5f66fa4b30b85888d62facd4129c1304919f69ad6d8c2c43d9ce5cdb31d45803"
    "52c7362b8d80b7ef1bba5d676660a944764502f91d1d3c54910c088bccb72b11"
    "948a5e1a1dcd04369c17d298804c216e7a2690b8c0e970363300d092df24fb8c"
)


class TokenError(CedarError):
    """A token that cannot be made, read or trusted."""


def _hkdf(key: bytes, salt: bytes, info: bytes, length: int = 32) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(key)


def signing_key(path: Path) -> bytes:
    """The JWT key from a pool signing key file, as HTCondor derives it."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise TokenError(f"cannot read the signing key {path}: {e.strerror}") from None
    if not raw:
        raise TokenError(f"the signing key {path} is empty")
    plain = bytes(c ^ _SCRAMBLE[i % 4] for i, c in enumerate(raw))
    return _hkdf(plain + plain, b"htcondor", b"master jwt")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise TokenError("a token part is not base64url") from None


def sign(key: bytes, unsigned: str) -> bytes:
    return hmac.new(key, unsigned.encode(), hashlib.sha256).digest()


def make(
    key: bytes,
    issuer: str,
    subject: str,
    lifetime: int | None = None,
    scopes: list[str] | None = None,
    key_id: str = "POOL",
    now: float | None = None,
) -> str:
    """A token as condor_token_create makes one: `subject` (user@domain) authenticated by
    `issuer` (the TRUST_DOMAIN), limited to `scopes` (condor:/READ ...) when given."""
    issued = int(time.time() if now is None else now)
    header = {"alg": "HS256", "kid": key_id, "typ": "JWT"}
    claims: dict[str, object] = {
        "iat": issued,
        "iss": issuer,
        "jti": uuid.uuid4().hex,
        "sub": subject,
    }
    if lifetime is not None:
        claims["exp"] = issued + lifetime
    if scopes:
        claims["scope"] = " ".join(scopes)
    unsigned = ".".join(
        _b64(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)
    )
    return f"{unsigned}.{_b64(sign(key, unsigned))}"


@dataclass(frozen=True)
class Claims:
    key_id: str
    issuer: str
    subject: str
    token_id: str
    expires: int | None
    scopes: tuple[str, ...]


def read(unsigned: str) -> Claims:
    """The claims of `header.payload` (nothing checked but their shape)."""
    parts = unsigned.split(".")
    if len(parts) < 2:
        raise TokenError("a token is header.payload[.signature]")
    try:
        header = json.loads(_unb64(parts[0]))
        claims = json.loads(_unb64(parts[1]))
    except (ValueError, UnicodeDecodeError):
        raise TokenError("a token part is not JSON") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise TokenError("a token part is not a JSON object")
    if header.get("alg") != "HS256":
        raise TokenError(f"token algorithm {header.get('alg')!r} is not served (HS256 is)")
    exp = claims.get("exp")
    scope = claims.get("scope")
    return Claims(
        str(header.get("kid") or ""),
        str(claims.get("iss") or ""),
        str(claims.get("sub") or ""),
        str(claims.get("jti") or ""),
        exp if isinstance(exp, int) else None,
        tuple(scope.split()) if isinstance(scope, str) else (),
    )


def verify(unsigned: str, key: bytes, issuer: str, now: float | None = None) -> Claims:
    """The claims of a token this pool issued and that is still good; its signature is
    the caller's to recompute (it never travels in the handshake)."""
    claims = read(unsigned)
    if claims.issuer != issuer:
        raise TokenError(f"the token was issued by {claims.issuer!r}, not {issuer!r}")
    if not claims.token_id or not claims.subject:
        raise TokenError("the token names no id or no subject")
    if claims.expires is not None and claims.expires < (time.time() if now is None else now):
        raise TokenError("the token has expired")
    return claims


def _keys(signature: bytes, unsigned: str) -> tuple[bytes, bytes]:
    tail = unsigned.encode()
    ka = _hkdf(signature, _SEED_KA + tail, b"master ka")
    kb = _hkdf(signature, _SEED_KB + tail, b"master kb")
    return ka, kb


def _mac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha1).digest()


async def authenticate(conn: Connection, keys: dict[str, bytes], issuer: str) -> str | None:
    """The daemon's side of TOKEN: the token's subject, or None."""
    msg = Reader(await conn.receive(), conn.encrypted)
    status, _a_len, a = msg.integer(), msg.integer(), msg.text()
    unsigned = msg.text()
    ra = msg.take(msg.integer())
    claims: Claims | None = None
    ka = b""
    if status == OK and len(ra) == KEY_LEN:
        try:
            claims = verify(unsigned, keys[read(unsigned).key_id], issuer)
        except (TokenError, KeyError):
            claims = None
    if claims is not None and claims.subject == a:
        key = keys[claims.key_id]
        ka, _kb = _keys(sign(key, unsigned), unsigned)
    rb = os.urandom(KEY_LEN)
    out = Writer(conn.encrypted)
    if not ka:
        out.integer(ERROR).integer(0).string("").integer(0).string("")
        await conn.send(out.integer(0).integer(0).integer(0).bytes())
        Reader(await conn.receive(), conn.encrypted)  # the client's last word
        return None
    hkt = _mac(ka, f"{a} {SERVER_NAME}".encode() + b"\0" + ra + rb)
    out.integer(OK).integer(len(a)).string(a).integer(len(SERVER_NAME)).string(SERVER_NAME)
    out.integer(KEY_LEN).raw(ra).integer(KEY_LEN).raw(rb).integer(len(hkt)).raw(hkt)
    await conn.send(out.bytes())
    reply = Reader(await conn.receive(), conn.encrypted)
    status, _a_len, a2 = reply.integer(), reply.integer(), reply.text()
    rb2 = reply.take(reply.integer())
    hk = reply.take(reply.integer())
    want = _mac(ka, a.encode() + b"\0" + rb)
    if status != OK or a2 != a or rb2 != rb or not hmac.compare_digest(hk, want):
        return None
    return claims.subject if claims is not None else None
