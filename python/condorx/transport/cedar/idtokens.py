"""The daemon's side of HTCondor's TOKEN authentication method (IDTOKENS): AKEP2 over
CEDAR messages, HTCondor's `condor_auth_passwd.cpp` in its version 2. The tokens
themselves are `condorx.transport.tokens`.

The client speaks first:
1. client: [status][len(a)][a = the token's subject][header.payload][256][ra: 256 bytes]
2. the daemon recomputes the token's signature (it never travels), and from it the
   keys ka and kb (HKDF-SHA256, salt = a fixed 256-byte seed + header.payload, info
   "master ka" / "master kb"); it answers [status][len(a)][a][len(b)][b][256][ra]
   [256][rb][len][hkt = HMAC-SHA1(ka, "a b" NUL ra rb)]
3. client: [status][len(a)][a][256][rb][len][hk = HMAC-SHA1(ka, a NUL rb)]: only a
   holder of the signature can compute it.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from condorx.transport.cedar.codec import Reader, Writer
from condorx.transport.cedar.packets import Connection
from condorx.transport.tokens import Claims, TokenError, hkdf, read, sign, verify

KEY_LEN = 256  # the random challenges' length (AUTH_PW_KEY_LEN)
OK, ERROR = 0, -1
# The name the daemon gives itself in the exchange (HTCondor's CONDOR_PASSWORD_FQU).
SERVER_NAME = "condor@password"
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


def _keys(signature: bytes, unsigned: str) -> tuple[bytes, bytes]:
    tail = unsigned.encode()
    ka = hkdf(signature, _SEED_KA + tail, b"master ka")
    kb = hkdf(signature, _SEED_KB + tail, b"master kb")
    return ka, kb


def _mac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha1).digest()


async def authenticate(conn: Connection, keys: dict[str, bytes], issuer: str) -> Claims | None:
    """The daemon's side of TOKEN: the token's claims, or None."""
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
    return claims
