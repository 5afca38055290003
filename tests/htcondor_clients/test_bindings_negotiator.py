"""`htcondor2.Negotiator` on condorx's negotiator: the accountant's records as HTCondor's
numbered report, and the edits condor_userprio makes (factor, priority, usage, times,
reset, delete), each an administrator's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from condorx.testing import bindings
from condorx.testing.pool import LocalPool

EDITS = """
import time, htcondor2 as htcondor
deadline = time.time() + 60  # until the negotiator has advertised itself
while not htcondor.Collector().query(htcondor.AdTypes.Negotiator) and time.time() < deadline:
    time.sleep(0.2)
n = htcondor.Negotiator()
user = "alice@example.org"
n.setFactor(user, 250.0)
n.setUsage(user, 3600.0)
n.setBeginUsage(user, 1700000000)
n.setLastUsage(user, 1700000600)
def record():
    return [dict(a) for a in n.getPriorities() if a.get("Name") == user]
out = {"edited": record()}
n.resetUsage(user)
out["reset"] = record()
n.deleteUser(user)
out["deleted"] = record()
result(out)
"""


@pytest.fixture(scope="module")
def negotiator_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    with LocalPool.running(tmp_path_factory.mktemp("pool"), "collector", "negotiator") as pool:
        yield pool


def test_priorities_and_edits_through_the_bindings(negotiator_pool):
    r = bindings.run(negotiator_pool, EDITS)
    assert r.returncode == 0, r.stderr
    (edited,) = r.value["edited"]
    # CEDAR sends a double as a 31-bit mantissa and an exponent: 9 digits, not 17.
    assert edited["PriorityFactor"] == pytest.approx(250.0, rel=1e-8)
    assert edited["AccumulatedUsage"] == pytest.approx(3600.0, rel=1e-8)
    assert (edited["BeginUsageTime"], edited["LastUsageTime"]) == (1700000000, 1700000600)
    (reset,) = r.value["reset"]
    assert reset["AccumulatedUsage"] == 0.0
    assert reset["PriorityFactor"] == pytest.approx(250.0, rel=1e-8)
    assert r.value["deleted"] == []
