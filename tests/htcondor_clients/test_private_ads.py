"""A startd's private ad (its claim ids) beside its public one, as HTCondor's startds
send them in one UPDATE_STARTD_AD: the collector keeps it for the negotiator
(QUERY_STARTD_PVT_ADS, NEGOTIATOR permission) and never shows it to anyone else or in a
query of every type; it goes when its public ad is invalidated."""

from __future__ import annotations

import getpass
from collections.abc import Iterator

import pytest
import trio

from condorx.classad import ClassAd
from condorx.testing import bindings
from condorx.testing import cedar_client as cc
from condorx.testing.pool import LocalPool
from condorx.transport import locate
from condorx.transport.cedar.codec import Writer
from condorx.transport.cedar.commands import Cmd
from condorx.transport.connection import Address

QUERIES = """
import htcondor2 as htcondor
c = htcondor.Collector()
out = {}
for name in ("StartdPrivate", "Startd", "Any"):
    try:
        ads = c.query(getattr(htcondor.AdType, name))
        spy = [a for a in ads if a.get("Name") == "slot1@spy"]
        out[name] = sorted([a.get("Name"), a.get("Capability")] for a in spy)
    except Exception as e:
        out[name] = type(e).__name__ + ": " + str(e)
result(out)
"""


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    me = getpass.getuser()
    # This user may advertise as a startd; the negotiator's level is another's.
    config = f"ALLOW_ADVERTISE_STARTD = {me}@*\nALLOW_NEGOTIATOR = {me}@*\n"
    with LocalPool.running(tmp_path_factory.mktemp("pvt"), "collector", config=config) as p:
        yield p


def _update(pool: LocalPool, command: int, *ads: ClassAd) -> None:
    async def go() -> None:
        addr = Address.parse(locate.collector_address(pool.cfg) or "")
        conn = await cc.open_connection(addr.host, addr.port)
        await cc.authenticate(conn, command, "REQUIRED")
        w = Writer(conn.encrypted)
        for ad in ads:
            w.classad(ad)
        await conn.send(w.bytes())
        await conn.send(Writer(conn.encrypted).integer(Cmd.DC_NOP).bytes())
        await conn.aclose()

    trio.run(go)


def test_the_negotiator_alone_reads_private_ads(pool):
    public = ClassAd({"MyType": "Machine", "Name": "slot1@spy", "MyAddress": "<127.0.0.1:9>"})
    private = ClassAd({"Capability": "<127.0.0.1:9>#1#1#secret"})
    _update(pool, Cmd.UPDATE_STARTD_AD, public, private)
    r = bindings.run(pool, QUERIES)
    assert r.returncode == 0, r.stderr
    secret = "<127.0.0.1:9>#1#1#secret"
    assert r.value["StartdPrivate"] == [["slot1@spy", secret]]
    assert r.value["Startd"] == [["slot1@spy", None]]
    assert r.value["Any"] == [["slot1@spy", None]]
    # Without NEGOTIATOR permission (the lists give it to the pool alone by default).
    other = bindings.run(pool, QUERIES, "SEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE\n")
    assert other.returncode == 0, other.stderr
    assert other.value["StartdPrivate"] != [["slot1@spy", secret]]
