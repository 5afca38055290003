"""SCITOKENS served to HTCondor's own bindings: a token from an issuer the pool trusts,
checked against that issuer's key set read from a local file, names its holder through
the map file, and its condor scopes bound what it may do. A token that is expired, for
another audience, from an untrusted issuer, signed with another key or unmapped
authenticates nobody, and the daemon's log says why."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from condorx.testing import bindings
from condorx.testing.certs import Authority
from condorx.testing.pool import LocalPool

ISSUER = "https://issuer.example"
AUDIENCE = "https://ap.example"
KEY = ec.generate_private_key(ec.SECP256R1())


def token(**changes: object) -> str:
    claims: dict[str, object] = {
        "iss": ISSUER,
        "sub": "alice",
        "aud": AUDIENCE,
        "scope": "condor:/READ condor:/WRITE",
        "ver": "scitoken:2.0",
        "iat": int(time.time()),
        "exp": int(time.time()) + 600,
        "jti": "t1",
    }
    key = changes.pop("key", KEY)
    claims.update(changes)
    return jwt.encode(
        {k: v for k, v in claims.items() if v is not None}, key, "ES256", headers={"kid": "k1"}
    )


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    root = tmp_path_factory.mktemp("scipool")
    pki = Authority(root / "pki")
    host = pki.issue("host", "/O=condorx tests/CN=localhost", hosts=True)
    jwk = ECAlgorithm.to_jwk(KEY.public_key(), as_dict=True)
    (root / "issuer.jwks").write_text(json.dumps({"keys": [{**jwk, "kid": "k1", "use": "sig"}]}))
    (root / "map").write_text('SCITOKENS "^https://issuer\\.example,(alice|bob)$" \\1\n')
    config = (
        "CLASSAD_LIFETIME = 60\n"
        f"AUTH_SSL_SERVER_CERTFILE = {host.cert}\nAUTH_SSL_SERVER_KEYFILE = {host.key}\n"
        f"CERTIFICATE_MAPFILE = {root}/map\n"
        "SEC_DEFAULT_AUTHENTICATION_METHODS = SCITOKENS\n"
        "SEC_READ_AUTHENTICATION = PREFERRED\n"
        f"SCITOKENS_SERVER_AUDIENCE = {AUDIENCE}\n"
        f"SCITOKENS_ISSUERS = EX\nSCITOKENS_ISSUER_EX = {ISSUER}\n"
        f"SCITOKENS_ISSUER_EX_KEY_SET_FILE = {root}/issuer.jwks\n"
    )
    with LocalPool.running(root, "collector", "schedd", config=config) as p:
        p.ca = pki.file  # type: ignore[attr-defined]
        yield p


def run(pool: LocalPool, code: str, text: str, name: str) -> bindings.Result:
    path = pool.root / f"{name}.token"
    path.write_text(text + "\n")
    path.chmod(0o600)
    config = (
        "SEC_CLIENT_AUTHENTICATION_METHODS = SCITOKENS\n"
        f"AUTH_SSL_CLIENT_CAFILE = {pool.ca}\nSCITOKENS_FILE = {path}\n"  # type: ignore[attr-defined]
    )
    return bindings.run(pool, code, config)


WHO = bindings.WHO_AT_LEVELS

SUBMIT = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
job = htcondor.Submit({"executable": "/bin/true", "hold": "true"})
job["My.AuthTokenSubject"] = '"forged"'  # only the schedd may set it
cluster = schedd.submit(job).cluster()
names = ["Owner", "AuthTokenSubject", "AuthTokenIssuer", "AuthTokenId", "AuthTokenScopes"]
ad = schedd.query(f"ClusterId == {cluster}", names)[0]
result({name: ad.get(name) for name in names})
"""


def test_a_trusted_token_is_its_mapped_user(pool):
    domain = pool.cfg.get("UID_DOMAIN")
    r = run(pool, WHO, token(), "good")
    assert r.value == {"READ": [f"alice@{domain}", True], "WRITE": [f"alice@{domain}", True]}
    r = run(pool, SUBMIT, token(sub="bob"), "bob")
    assert r.returncode == 0, r.stderr
    # The job carries what the token said (as only the schedd may set it: the
    # submission's own AuthTokenSubject is dropped).
    assert r.value == {
        "Owner": "bob",
        "AuthTokenSubject": "bob",
        "AuthTokenIssuer": ISSUER,
        "AuthTokenId": "t1",
        "AuthTokenScopes": "condor:/READ,condor:/WRITE",
    }


def test_its_scopes_bound_what_it_may_do(pool):
    domain = pool.cfg.get("UID_DOMAIN")
    r = run(pool, WHO, token(scope="condor:/READ"), "reader")
    assert r.value["READ"] == [f"alice@{domain}", True]
    assert r.value["WRITE"] != [f"alice@{domain}", True]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"exp": int(time.time()) - 60}, "the token has expired"),
        ({"aud": "https://other.example"}, "not https://ap.example"),
        ({"iss": "https://evil.example"}, "is not trusted here"),
        ({"key": ec.generate_private_key(ec.SECP256R1())}, "Signature verification failed"),
        ({"sub": "mallory"}, "no map file line maps it"),
    ],
)
def test_a_bad_token_authenticates_nobody(pool, changes, why):
    r = run(pool, WHO, token(**changes), "bad")
    assert r.value["WRITE"] == "HTCondorException", r.value
    assert r.value["READ"] == [None, True]  # read on, unauthenticated
    assert why in (pool.root / "log" / "SchedLog").read_text()


def test_a_token_cannot_choose_a_symmetric_algorithm(pool):
    # HS256 "signed" with the issuer's public key, as an attacker who read it would.
    public = KEY.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    claims = jwt.decode(token(), options={"verify_signature": False})
    forged = _hs256(claims, public)
    r = run(pool, WHO, forged, "forged")
    assert r.value["WRITE"] == "HTCondorException", r.value
    assert "not signed with ES256" in (pool.root / "log" / "SchedLog").read_text()


def _hs256(claims: dict, secret: bytes) -> str:
    import base64
    import hashlib
    import hmac

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = part(json.dumps({"alg": "HS256", "kid": "k1", "typ": "JWT"}).encode())
    body = part(json.dumps(claims).encode())
    mac = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{part(mac)}"
