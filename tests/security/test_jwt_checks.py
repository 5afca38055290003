"""Every JWT is checked through PyJWT, its algorithm pinned by whoever trusts its issuer:
a token cannot choose a weaker algorithm (or none), an expired or not-yet-valid one is
refused, and a token from another issuer or for another audience too."""

from __future__ import annotations

import base64
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from condorx.transport import tokens

KEY = bytes(range(32))


def unsigned(header: dict, claims: dict) -> str:
    part = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()  # noqa: E731
    return f"{part(header)}.{part(claims)}"


def claims(**extra) -> dict:
    return {"iss": "pool", "sub": "alice@pool", "jti": "1", "iat": int(time.time()), **extra}


def test_a_pool_token_verifies_and_names_its_subject():
    token = tokens.make(KEY, "pool", "alice@pool", lifetime=60, scopes=["condor:/READ"])
    got = tokens.verify(token.rpartition(".")[0], KEY, "pool")
    assert (got.subject, got.scopes, got.key_id) == ("alice@pool", ("condor:/READ",), "POOL")
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header == {"alg": "HS256", "kid": "POOL", "typ": "JWT"}


@pytest.mark.parametrize("alg", ["none", "HS512", "RS256", "ES256"])
def test_a_token_cannot_choose_its_algorithm(alg):
    text = unsigned({"alg": alg, "kid": "POOL", "typ": "JWT"}, claims())
    with pytest.raises(tokens.TokenError, match="not signed with HS256"):
        tokens.verify(text, KEY, "pool")


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ({"exp": int(time.time()) - 10}, "expired"),
        ({"nbf": int(time.time()) + 3600}, "not yet valid"),
        ({"iss": "elsewhere"}, "not issued by 'pool'"),
        ({"jti": None}, "jti"),
    ],
)
def test_a_pool_token_out_of_its_terms_is_refused(extra, why):
    body = {k: v for k, v in claims(**extra).items() if v is not None}
    text = unsigned({"alg": "HS256", "kid": "POOL", "typ": "JWT"}, body)
    with pytest.raises(tokens.TokenError, match=why):
        tokens.verify(text, KEY, "pool")


def test_an_issuers_key_checks_its_own_algorithm_and_the_audience():
    private = ec.generate_private_key(ec.SECP256R1())
    token = jwt.encode(claims(aud="https://ap.example"), private, algorithm="ES256")
    public = private.public_key()
    assert tokens.check(token, public, ["ES256"], "pool", ["https://ap.example"])["sub"]
    with pytest.raises(tokens.TokenError, match="Audience"):
        tokens.check(token, public, ["ES256"], "pool", ["https://other.example"])
    with pytest.raises(tokens.TokenError, match="not signed with RS256"):
        tokens.check(token, public, ["RS256"], "pool", ["https://ap.example"])
    other = ec.generate_private_key(ec.SECP256R1()).public_key()
    with pytest.raises(tokens.TokenError, match="Signature verification failed"):
        tokens.check(token, other, ["ES256"], "pool", ["https://ap.example"])
