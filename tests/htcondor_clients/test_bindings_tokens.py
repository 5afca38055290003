"""IDTOKENS: a token in HTCondor's format (a JWT signed from the pool signing key, as
condor_token_create makes it) lets HTCondor's bindings authenticate to condorx as the
token's subject; a token signed with another key, or expired, does not."""

from __future__ import annotations

import getpass

from condorx import locate
from condorx.cedar import idtokens
from condorx.testing import bindings

SUBMIT_AS_TOKEN = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
r = schedd.submit(htcondor.Submit({"executable": "/bin/true", "My.Via": '"token"'}), count=1)
job = schedd.query(f"ClusterId == {r.cluster()}", ["Owner", "Via"])[0]
ping = htcondor.ping(htcondor.Collector().locate(htcondor.DaemonTypes.Schedd), "WRITE")
result({"owner": job["Owner"], "via": job["Via"], "ping": ping.get("AuthorizationSucceeded")})
"""


def _config(pool, token: str) -> str:
    tokens = pool.root / "client-tokens"
    tokens.mkdir(exist_ok=True)
    for old in tokens.iterdir():
        old.unlink()
    (tokens / "token").write_text(token + "\n")
    (tokens / "token").chmod(0o600)  # HTCondor reads no token others could read
    # Root reads the system token directory; nobody here may sign a token of their own
    # (a client that can read the pool key makes itself one as condor@password).
    return (
        "SEC_CLIENT_AUTHENTICATION = REQUIRED\n"
        "SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS\n"
        f"SEC_TOKEN_DIRECTORY = {tokens}\n"
        f"SEC_TOKEN_SYSTEM_DIRECTORY = {tokens}\n"
        f"SEC_TOKEN_POOL_SIGNING_KEY_FILE = {pool.root}/no-key-here\n"
    )


def _token(pool, key: bytes | None = None, lifetime: int | None = 3600) -> str:
    cfg = pool.cfg
    key = key or idtokens.signing_key(locate.pool_key_file(cfg))
    trust = cfg.get("TRUST_DOMAIN") or ""
    return idtokens.make(key, trust, f"{getpass.getuser()}@{cfg.get('UID_DOMAIN')}", lifetime)


def test_a_pool_token_authenticates_the_bindings(pool):
    r = bindings.run(pool, SUBMIT_AS_TOKEN, _config(pool, _token(pool)))
    assert r.returncode == 0, r.stderr
    assert r.value == {"owner": getpass.getuser(), "via": "token", "ping": True}


def test_a_token_from_another_key_or_expired_is_refused(pool):
    for token in (_token(pool, key=b"k" * 32), _token(pool, lifetime=-60)):
        r = bindings.run(pool, SUBMIT_AS_TOKEN, _config(pool, token))
        assert r.returncode != 0
        assert "Traceback" in r.stderr and "Segmentation" not in r.stderr
