"""SSL authentication served to HTCondor's own bindings: the client's certificate, signed
by a CA the daemon trusts (AUTH_SSL_SERVER_CAFILE), names it through the map file
(CERTIFICATE_MAPFILE); a certificate the map does not know proves nobody, one from
another CA nothing at all, and AUTH_SSL_REQUIRE_CLIENT_CERTIFICATE and
AUTH_SSL_REQUIRE_CLIENT_MAPPING refuse what they say."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing import bindings
from condorx.testing.certs import Authority, Pair
from condorx.testing.pool import LocalPool

ALICE_DN = "/C=US/O=condorx tests/CN=Alice Smith"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Authority:
    return Authority(tmp_path_factory.mktemp("pki"))


def server_config(pki: Authority, root: Path, extra: str = "") -> str:
    host = pki.issue("host", "/O=condorx tests/CN=localhost", hosts=True)
    lines = f'SSL "{ALICE_DN}" alice\nSSL "^/O=condorx tests/CN=(\\w+)$" \\1\n'
    (root / "map").write_text(lines)
    return (
        "CLASSAD_LIFETIME = 60\n"
        f"AUTH_SSL_SERVER_CERTFILE = {host.cert}\nAUTH_SSL_SERVER_KEYFILE = {host.key}\n"
        f"AUTH_SSL_SERVER_CAFILE = {pki.file}\nCERTIFICATE_MAPFILE = {root}/map\n"
        "SEC_DEFAULT_AUTHENTICATION_METHODS = SSL\nSEC_READ_AUTHENTICATION = PREFERRED\n"
        f"{extra}"
    )


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory, pki: Authority) -> Iterator[LocalPool]:
    root = tmp_path_factory.mktemp("sslpool")
    with LocalPool.running(root, "collector", "schedd", config=server_config(pki, root)) as p:
        yield p


def client(ca: Path, pair: Pair | None) -> str:
    out = f"SEC_CLIENT_AUTHENTICATION_METHODS = SSL\nAUTH_SSL_CLIENT_CAFILE = {ca}\n"
    if pair is not None:
        out += f"AUTH_SSL_CLIENT_CERTFILE = {pair.cert}\nAUTH_SSL_CLIENT_KEYFILE = {pair.key}\n"
    return out


WHO = bindings.WHO_AT_LEVELS

SUBMIT = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
cluster = schedd.submit(htcondor.Submit({"executable": "/bin/true", "hold": "true"})).cluster()
result(schedd.query(f"ClusterId == {cluster}", ["Owner"])[0]["Owner"])
"""


def test_a_mapped_certificate_is_its_user(pool, pki):
    alice = pki.issue("alice", ALICE_DN)
    r = bindings.run(pool, WHO, client(pki.file, alice))
    domain = pool.cfg.get("UID_DOMAIN")
    assert r.value == {"READ": [f"alice@{domain}", True], "WRITE": [f"alice@{domain}", True]}
    r = bindings.run(pool, SUBMIT, client(pki.file, alice))
    assert r.returncode == 0, r.stderr
    assert r.value == "alice"
    # A regex line's group names the user.
    bob = pki.issue("bob", "/O=condorx tests/CN=bob")
    r = bindings.run(pool, WHO, client(pki.file, bob))
    assert r.value["WRITE"] == [f"bob@{domain}", True]


def test_an_unmapped_certificate_proves_nobody_and_a_strangers_nothing(pool, pki, tmp_path):
    carol = pki.issue("carol", "/C=US/O=elsewhere/CN=Carol")
    r = bindings.run(pool, WHO, client(pki.file, carol))
    # ssl@unmapped, as HTCondor names it: it may read, not write.
    assert r.value["READ"] == ["ssl@unmapped", True]
    assert r.value["WRITE"] != ["ssl@unmapped", True]
    other = Authority(tmp_path / "other-ca").issue("alice", ALICE_DN)
    r = bindings.run(pool, WHO, client(pki.file, other))
    assert r.value["WRITE"] == "HTCondorException", r.value
    log = (pool.root / "log" / "SchedLog").read_text()
    assert "certificate verify failed" in log


def test_a_client_without_a_certificate_is_unauthenticated(pool, pki):
    r = bindings.run(pool, WHO, client(pki.file, None))
    assert r.value["READ"] == ["unauthenticated@unmapped", True]
    assert r.value["WRITE"] != ["unauthenticated@unmapped", True]


@pytest.mark.parametrize(
    ("knob", "subject"),
    [
        ("AUTH_SSL_REQUIRE_CLIENT_CERTIFICATE", None),
        ("AUTH_SSL_REQUIRE_CLIENT_MAPPING", "/C=US/O=elsewhere/CN=Carol"),
    ],
)
def test_the_requirements_refuse_what_they_name(tmp_path, pki, knob, subject):
    config = server_config(pki, tmp_path, f"{knob} = true\n")
    with LocalPool.running(tmp_path, "collector", "schedd", config=config) as pool:
        pair = pki.issue("who", subject) if subject else None
        r = bindings.run(pool, WHO, client(pki.file, pair))
        # Authentication fails: READ goes on unauthenticated (it is only preferred there).
        assert r.value == {"READ": [None, True], "WRITE": "HTCondorException"}
        alice = pki.issue("alice", ALICE_DN)
        r = bindings.run(pool, WHO, client(pki.file, alice))
        assert r.value["WRITE"][1] is True
