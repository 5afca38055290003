"""Late materialization and the schedd's job transforms: HTCondor transforms and checks
each job a factory makes as it is made (TRANSFORM_FACTORY_AND_JOB_ADS, true by default),
beside the factory's cluster ad at submission; with the knob false, only the cluster ad
is, and its jobs inherit what the transform made of it."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import LocalPool, wait_for

pytestmark = pytest.mark.daemons  # starts its own daemons

RULES = """
JOB_TRANSFORM_NAMES = Tag
JOB_TRANSFORM_Tag @=end
   EVALSET Tagged strcat("p", ProcId)
@end
SUBMIT_REQUIREMENT_NAMES = FewProcs
SUBMIT_REQUIREMENT_FewProcs = ProcId < 3
SUBMIT_REQUIREMENT_FewProcs_REASON = "only three jobs"
"""

JOB = """\
executable = /bin/true
hold = True
max_materialize = 10
queue 5
"""


@pytest.fixture
def make_pool() -> Iterator:
    pools: list[LocalPool] = []

    def make(extra: str) -> LocalPool:
        p = LocalPool(Path(tempfile.mkdtemp(prefix="fxf")), RULES + extra)
        pools.append(p)
        p.start("collector", "schedd")
        return p

    yield make
    for p in pools:
        p.stop()


def jobs(pool: LocalPool) -> list[list[str]]:
    out = pool.cli("condorx.cli.q", "-af", "ProcId", "Tagged").stdout
    return [line.split() for line in out.splitlines()]


def paused(pool: LocalPool) -> list[str]:
    """The factory's JobMaterializePaused and its reason (its jobs read them from their
    cluster's ad)."""
    return [
        pool.cli("condorx.cli.q", "-af", attr).stdout.splitlines()[0]
        for attr in ("JobMaterializePaused", "JobMaterializePauseReason")
    ]


def test_each_made_job_is_transformed_and_checked(make_pool):
    pool = make_pool("")
    pool.submit(JOB)
    wait_for(lambda: len(jobs(pool)) == 3, "three jobs made")
    assert jobs(pool) == [["0", "p0"], ["1", "p1"], ["2", "p2"]]
    # The fourth breaks the requirement: the factory stops there, invalid, saying why.
    wait_for(lambda: paused(pool)[:1] == ["-1"], "the factory paused as invalid")
    assert "only three jobs" in paused(pool)[1] and paused(pool)[1].startswith("proc 3: ")
    assert len(jobs(pool)) == 3


def test_with_the_knob_false_only_the_factory_is(make_pool):
    pool = make_pool("TRANSFORM_FACTORY_AND_JOB_ADS = false\n")
    pool.submit(JOB)
    wait_for(lambda: len(jobs(pool)) == 5, "all five jobs made")
    assert jobs(pool) == [[str(p), "p0"] for p in range(5)]
