"""Tokens in HTCondor's format (IDTOKENS): JWTs signed with HS256, as condor_token_create
makes them, used by both of condorx's wires (HTCondor's TOKEN method on the CEDAR face,
condorx's own token handshake) and by condor_token_create / condor_token_list.

A token is `header.payload.signature`: the header names the key (`kid`, POOL for the
pool signing key), the payload the issuer (`iss`, the pool's TRUST_DOMAIN), the
subject (`sub`, user@domain), an id (`jti`), when it was made (`iat`), when it
expires (`exp`, optional) and what it may do (`scope`, "condor:/READ ...", optional).

The pool signing key file (SEC_TOKEN_POOL_SIGNING_KEY_FILE, passwords.d/POOL) holds
the key XORed with DE AD BE EF; HTCondor reads it, undoes that, and doubles it. The
JWT key is HKDF-SHA256(that, salt "htcondor", info "master jwt"), 32 bytes. The
signature, which only holders of the pool key can compute, is the secret a token's
holder proves it has (it never travels in a handshake).
"""

from __future__ import annotations

import os
import time

from condorx.errors import CondorxError
from condorx.record import record

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

_SCRAMBLE = bytes.fromhex("deadbeef")


class TokenError(CondorxError):
    """A token that cannot be made, read or trusted."""


def hkdf(key: bytes, salt: bytes, info: bytes, length: int = 32) -> bytes:
    # Loaded at need: a tool on the schedd's local socket makes no token.
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(key)


def jwt_key(pool_key: bytes) -> bytes:
    """The JWT key from a pool signing key file's bytes, as HTCondor derives it."""
    if not pool_key:
        raise TokenError("the pool signing key is empty")
    plain = bytes(c ^ _SCRAMBLE[i % 4] for i, c in enumerate(pool_key))
    return hkdf(plain + plain, b"htcondor", b"master jwt")


def signing_key(path: str | os.PathLike[str]) -> bytes:
    """The JWT key from a pool signing key file."""
    try:
        with open(path, "rb") as f:
            return jwt_key(f.read())
    except OSError as e:
        raise TokenError(f"cannot read the signing key {path}: {e.strerror}") from None


# json, uuid and base64 are imported where a token is made or read: a command-line tool
# on the schedd's local socket needs no token, and it pays its imports on every run.


def _b64(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    import base64

    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise TokenError("a token part is not base64url") from None


def sign(key: bytes, unsigned: str) -> bytes:
    """HS256's signature of `header.payload` under `key`."""
    from jwt.algorithms import HMACAlgorithm

    return HMACAlgorithm(HMACAlgorithm.SHA256).sign(unsigned.encode(), key)


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
    import uuid

    import jwt

    issued = int(time.time() if now is None else now)
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
    # The header as HTCondor writes it: {"alg":"HS256","kid":"POOL","typ":"JWT"}.
    return jwt.encode(claims, key, algorithm="HS256", headers={"kid": key_id})


@record(frozen=True)
class Claims:
    key_id: str
    issuer: str
    subject: str
    token_id: str
    expires: int | None
    scopes: tuple[str, ...]


def read(unsigned: str) -> Claims:
    """The claims of `header.payload` (nothing checked but their shape)."""
    import json

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


def verify(unsigned: str, key: bytes, issuer: str | None) -> Claims:
    """The claims of a token this pool issued (by `issuer`, when named) and that is still
    good. Its signature never travels in a handshake: it is recomputed here, and the
    whole token then checked as any JWT is (`check`), HS256 its only algorithm."""
    claims = read(unsigned)
    token = f"{unsigned}.{_b64(sign(key, unsigned))}"
    check(token, key, ["HS256"], issuer=issuer, required=("sub", "jti"))
    return claims


def check(
    token: str,
    key: Any,  # bytes (HMAC), or an issuer's public key (cryptography's, or a PyJWK)
    algorithms: list[str],
    issuer: str | None = None,
    audience: list[str] | None = None,
    required: tuple[str, ...] = ("sub",),
) -> dict[str, object]:
    """A JWT's payload, once PyJWT has checked its signature under `key` by one of
    `algorithms` (pinned by whoever trusts the issuer: never the token's own choice),
    its issuer, its audience when one is required, and its times (exp, nbf, iat)."""
    import jwt

    options: Any = {"require": list(required), "verify_aud": audience is not None}
    try:
        return jwt.decode(
            token, key, algorithms=algorithms, issuer=issuer, audience=audience, options=options
        )
    except jwt.ExpiredSignatureError:
        raise TokenError("the token has expired") from None
    except jwt.InvalidIssuerError:
        raise TokenError(f"the token was not issued by {issuer!r}") from None
    except jwt.InvalidAlgorithmError:
        raise TokenError(f"the token is not signed with {' or '.join(algorithms)}") from None
    except jwt.InvalidTokenError as e:
        raise TokenError(f"the token is refused: {e}") from None


def split(token: str) -> tuple[str, bytes]:
    """A whole token's `header.payload` and its signature (raw bytes)."""
    unsigned, dot, signature = token.strip().rpartition(".")
    if not dot or not unsigned or "." not in unsigned:
        raise TokenError("not a token (header.payload.signature)")
    return unsigned, _unb64(signature)


def local_user(subject: str) -> str:
    """condorx's user for a token's subject (alice@domain is alice)."""
    return subject.split("@", 1)[0]


def decoded(token: str) -> tuple[dict[str, object], dict[str, object]]:
    """A token's header and payload as JSON objects (condor_token_list prints them)."""
    import json

    parts = token.strip().split(".")
    if len(parts) != 3:
        raise TokenError("not a token (header.payload.signature)")
    try:
        header, payload = (json.loads(_unb64(p)) for p in parts[:2])
    except (ValueError, UnicodeDecodeError):
        raise TokenError("a token part is not JSON") from None
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise TokenError("a token part is not a JSON object")
    return header, payload
