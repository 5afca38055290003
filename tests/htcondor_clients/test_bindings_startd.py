"""`htcondor2.Startd` on condorx's startd: drainJobs (DRAIN_JOBS) drains its slots and
names the request; cancelDrainJobs (CANCEL_DRAIN_JOBS) lets them take jobs again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from condorx.testing import bindings
from condorx.testing.pool import QUICK_POOL, LocalPool

DRAIN = """
import time, htcondor2 as htcondor
coll = htcondor.Collector()
def states():
    return sorted({a["State"] for a in coll.query(htcondor.AdTypes.Startd, projection=["State"])})
def until(want):
    deadline = time.time() + 60
    while states() != want and time.time() < deadline:
        time.sleep(0.2)
    return states()
until(["Unclaimed"])
startd = htcondor.Startd(coll.locate(htcondor.DaemonTypes.Startd))
request = startd.drainJobs(htcondor.DrainType.Fast, reason="by a test")
out = {"request": request, "drained": until(["Drained"])}
startd.cancelDrainJobs(request)
out["back"] = until(["Unclaimed"])
result(out)
"""


@pytest.fixture(scope="module")
def startd_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    root = tmp_path_factory.mktemp("pool")
    with LocalPool.running(root, "collector", "startd", config=QUICK_POOL) as pool:
        yield pool


def test_drain_and_cancel_through_the_bindings(startd_pool):
    r = bindings.run(startd_pool, DRAIN)
    assert r.returncode == 0, r.stderr
    assert isinstance(r.value["request"], str) and r.value["request"]
    assert r.value["drained"] == ["Drained"]
    assert r.value["back"] == ["Unclaimed"]
