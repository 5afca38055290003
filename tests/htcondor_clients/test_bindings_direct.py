"""`Collector.locateAll` and `Collector.directQuery` of HTCondor's bindings: the
collector lists every daemon of a type, and each daemon answers for itself with the ad
it advertises (its own QUERY_<TYPE>_ADS, as HTCondor's daemons do)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from condorx.testing import bindings
from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for

pytestmark = pytest.mark.daemons  # starts its own daemons

DIRECT = """
import htcondor2 as htcondor
coll = htcondor.Collector()
out = {}
for kind in ("Schedd", "Master", "Negotiator", "Startd"):
    t = getattr(htcondor.DaemonType, kind)
    located = coll.locateAll(t)
    ad = coll.directQuery(t, projection=["Name", "MyType", "MyAddress"])
    out[kind] = {"located": [a["Name"] for a in located], "direct": dict(ad)}
result(out)
"""


@pytest.fixture(scope="module")
def whole_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    root = tmp_path_factory.mktemp("direct")
    daemons = ("collector", "negotiator", "startd", "schedd", "master")
    # The master here runs no daemon of its own: the pool's are started beside it.
    with LocalPool.running(root, *daemons, config=QUICK_POOL + "DAEMON_LIST = MASTER\n") as pool:
        # Every daemon's ad in the collector (the master's first goes out 2 s after it starts).
        wait_for(lambda: _advertised(pool) >= 4, "every daemon's ad in the collector")
        yield pool


def _advertised(pool: LocalPool) -> int:
    out = pool.cli("condorx.cli.status", "-any", "-af", "MyType").stdout.split()
    return len({t for t in out if t in ("Scheduler", "DaemonMaster", "Negotiator", "Machine")})


def test_each_daemon_answers_a_direct_query_with_its_own_ad(whole_pool):
    r = bindings.run(whole_pool, DIRECT)
    assert r.returncode == 0, r.stderr
    v = r.value
    types = {"Schedd": "Scheduler", "Master": "DaemonMaster", "Negotiator": "Negotiator"}
    types["Startd"] = "Machine"
    for kind, my_type in types.items():
        direct = v[kind]["direct"]
        assert direct["MyType"] == my_type, kind
        assert direct["Name"] in v[kind]["located"], kind
        assert set(direct) <= {"Name", "MyType", "MyAddress"}  # the projection
