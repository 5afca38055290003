"""IDTOKENS: a token in HTCondor's format (a JWT signed from the pool signing key, made by
condorx's condor_token_create) lets HTCondor's bindings authenticate to condorx as the
token's subject; a token signed with another key, or expired, does not; condor_token_list
shows the tokens as HTCondor's does."""

from __future__ import annotations

import getpass

from condorx.testing import bindings
from condorx.transport import locate, tokens

SUBMIT_AS_TOKEN = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
r = schedd.submit(htcondor.Submit({"executable": "/bin/true", "My.Via": '"token"'}), count=1)
job = schedd.query(f"ClusterId == {r.cluster()}", ["Owner", "Via", "AuthTokenSubject"])[0]
ping = htcondor.ping(htcondor.Collector().locate(htcondor.DaemonTypes.Schedd), "WRITE")
result({"owner": job["Owner"], "via": job["Via"], "ping": ping.get("AuthorizationSucceeded"),
        "subject": job.get("AuthTokenSubject")})
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
    key = key or tokens.signing_key(locate.pool_key_file(cfg))
    trust = cfg.get("TRUST_DOMAIN") or ""
    return tokens.make(key, trust, f"{getpass.getuser()}@{cfg.get('UID_DOMAIN')}", lifetime)


def test_a_token_from_condor_token_create_authenticates_the_bindings(pool):
    user = f"{getpass.getuser()}@{pool.cfg.get('UID_DOMAIN')}"
    made = pool.root / "made.token"
    pool.cli("condorx.cli.token:create", "-identity", user, "-lifetime", "3600", "-file", str(made))
    assert made.stat().st_mode & 0o077 == 0
    r = bindings.run(pool, SUBMIT_AS_TOKEN, _config(pool, made.read_text().strip()))
    assert r.returncode == 0, r.stderr
    assert r.value == {"owner": getpass.getuser(), "via": "token", "ping": True, "subject": user}
    listed = pool.cli("condorx.cli.token:list_tokens", "-file", str(made)).stdout
    assert listed.startswith('Header: {"alg":"HS256","kid":"POOL","typ":"JWT"} Payload: {')
    assert f'"sub":"{user}"' in listed and listed.rstrip().endswith(f"File: {made}")


def test_condor_token_create_limits_and_names_its_tokens(pool):
    out = pool.cli(
        "condorx.cli.token:create", "-identity", "alice", "-authz", "READ", "-authz", "WRITE"
    ).stdout.strip()
    header, payload = tokens.decoded(out)
    assert header == {"alg": "HS256", "kid": "POOL", "typ": "JWT"}
    assert payload["sub"] == f"alice@{pool.cfg.get('UID_DOMAIN')}"
    assert payload["iss"] == pool.cfg.get("TRUST_DOMAIN")
    assert payload["scope"] == "condor:/READ condor:/WRITE" and "exp" not in payload
    bad = pool.cli("condorx.cli.token:create", "-key", "OTHER", check=False)
    assert bad.returncode == 2 and "OTHER" in bad.stderr


def test_a_token_from_another_key_or_expired_is_refused(pool):
    for token in (_token(pool, key=b"k" * 32), _token(pool, lifetime=-60)):
        r = bindings.run(pool, SUBMIT_AS_TOKEN, _config(pool, token))
        assert r.returncode != 0
        assert "Traceback" in r.stderr and "Segmentation" not in r.stderr


ADVERTISE = """
import classad2, htcondor2 as htcondor
coll = htcondor.Collector()
ad = classad2.ClassAd({"MyType": "Generic", "Name": "probe-1", "Color": "green"})
coll.advertise([ad], "UPDATE_AD_GENERIC")
seen = [a["Color"] for a in coll.query(htcondor.AdTypes.Generic, 'Name == "probe-1"')]
gone = classad2.ClassAd({"MyType": "Query", "TargetType": "Generic",
                         "Requirements": classad2.ExprTree('Name == "probe-1"')})
coll.advertise([gone], "INVALIDATE_ADS_GENERIC")
left = len(coll.query(htcondor.AdTypes.Generic, 'Name == "probe-1"'))
result({"seen": seen, "left": left})
"""


def test_the_pools_identity_advertises_and_invalidates_through_the_bindings(pool):
    # Only the pool's own identity may advertise: a token for condor@<its domain>.
    identity = f"condor@{pool.cfg.get('UID_DOMAIN')}"
    key = tokens.signing_key(locate.pool_key_file(pool.cfg))
    token = tokens.make(key, pool.cfg.get("TRUST_DOMAIN") or "", identity, 3600)
    r = bindings.run(pool, ADVERTISE, _config(pool, token))
    assert r.returncode == 0, r.stderr
    assert r.value == {"seen": ["green"], "left": 0}
    # A user's token may not: nothing is stored.
    bindings.run(pool, ADVERTISE.split("gone =")[0], _config(pool, _token(pool)))
    look = "import htcondor2 as h\nresult(len(h.Collector().query(h.AdTypes.Generic)))"
    assert bindings.run(pool, look).value == 0


READ_THEN_SUBMIT = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
before = len(schedd.query())
try:
    schedd.submit(htcondor.Submit({"executable": "/bin/true"}), count=1)
    submitted = "yes"
except Exception as e:
    submitted = type(e).__name__
result({"read": before, "submitted": submitted, "after": len(schedd.query())})
"""


def test_a_token_limited_to_read_may_query_and_not_submit(pool):
    user = f"{getpass.getuser()}@{pool.cfg.get('UID_DOMAIN')}"
    out = pool.cli("condorx.cli.token:create", "-identity", user, "-authz", "READ").stdout
    r = bindings.run(pool, READ_THEN_SUBMIT, _config(pool, out.strip()))
    assert r.returncode == 0, r.stderr
    assert r.value["submitted"] == "HTCondorException"
    assert r.value["after"] == r.value["read"]
