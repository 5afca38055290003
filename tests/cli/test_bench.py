"""`condorx bench` on a tiny pool: the figures are there and hang together (never timing)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from condorx.bench.pool import make_pool
from condorx.bench.run import Workload, run


def condorx(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "condorx.cli.main", *args], capture_output=True, text=True
    )


TINY = (
    "bench",
    "--slots",
    "200",
    "--jobs",
    "2000",
    "--users",
    "7",
    "--clusters",
    "20",
    "--cycles",
    "2",
    "--seed",
    "3",
)


@pytest.fixture(scope="module")
def figures() -> dict:
    r = condorx(*TINY, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_figures_are_present_and_consistent(figures):
    assert figures["workload"] == {
        "slots": 200,
        "jobs": 2000,
        "users": 7,
        "clusters": 20,
        "seed": 3,
    }
    assert figures["clusters"] == 20
    assert figures["cycles"] == 2 and len(figures["cycle_times"]) == 2
    assert 0 < figures["matches"] <= 200
    assert figures["matches"] + figures["rejections"] <= 2000
    assert figures["pairs_evaluated"] >= figures["matches"]
    assert figures["all_cycles_alike"] is True
    assert figures["cycle_seconds_min"] <= figures["cycle_seconds"] <= figures["cycle_seconds_max"]
    assert figures["matches_per_second"] > 0
    assert figures["peak_rss_mib"] >= figures["rss_after_pool_mib"] > 0
    assert figures["preemption"] is False


def test_preemption_is_passed_to_the_cycle():
    r = condorx(*TINY, "--preemption", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["preemption"] is True
    # The synthetic pool has no claimed slots: considering preemption matches the same.
    plain = json.loads(condorx(*TINY, "--no-preemption", "--json").stdout)
    assert (got["matches"], got["rejections"]) == (plain["matches"], plain["rejections"])


def test_table_output():
    r = condorx(*TINY)
    assert r.returncode == 0, r.stderr
    for figure in ("matches per second", "cycle time", "peak resident memory", "20 / 20"):
        assert figure in r.stdout


def test_bad_sizes_are_a_usage_error():
    r = condorx("bench", "--jobs", "10", "--clusters", "20")
    assert r.returncode == 2
    assert "clusters" in r.stderr and "Traceback" not in r.stderr


def test_pool_is_deterministic_and_clustered_as_asked():
    a = make_pool(50, 400, users=5, clusters=30, seed=9)
    b = make_pool(50, 400, users=5, clusters=30, seed=9)
    assert [s.printOld() for s in a.slots] == [s.printOld() for s in b.slots]
    assert a.jobs == 400 and len(a.representatives) == 30
    for sa, sb in zip(a.submitters, b.submitters, strict=True):
        assert (sa.name, sa.priority) == (sb.name, sb.priority)
        assert [j.printOld() for j in sa.jobs] == [j.printOld() for j in sb.jobs]
    # Each representative is the first job (ProcId 0) of its ClusterId.
    for cluster_id, u, j in a.representatives:
        job = a.submitters[u].jobs[j]
        assert (job["ClusterId"], job["ProcId"]) == (cluster_id, 0)


def test_every_job_distinct_is_one_cluster_per_job():
    result = run(Workload(slots=30, jobs=60, users=4, clusters=60, seed=2))
    assert result.clusters == 60
    assert result.matches <= 30
