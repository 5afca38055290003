"""HTCondor's bindings (htcondor2) ask the schedd for its queue aggregated, as condor_q
-group-by and -autocluster do (QUERY_JOB_ADS with ProjectionIsGroupBy or
QueryDefaultAutocluster, MaxReturnedJobIds 2): one ad per group, as HTCondor's schedd
builds it (autocluster.cpp)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from condorx.testing import bindings
from condorx.testing.pool import LocalPool

JOBS = """\
executable = /bin/true
+Flavor = "{flavor}"
request_memory = {memory}
+Wanted = RequestMemory > 200
queue {n}
"""
MINT = JOBS.format(flavor="mint", memory=128, n=3)
PLUM = JOBS.format(flavor="plum", memory=256, n=2)


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    with LocalPool.running(tmp_path_factory.mktemp("pool"), "collector", "schedd") as pool:
        mint = pool.submit(MINT, "mint.sub")
        plum = pool.submit(PLUM, "plum.sub")
        pool.cli("condorx.cli.act:hold", f"{plum}.1")
        pool.clusters = (mint, plum)  # type: ignore[attr-defined]
        yield pool


QUERIES = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
def ads(opts, projection=(), constraint="true"):
    plain = (int, float, str, bool)
    return [{k: v if isinstance(v, plain) else str(v) for k, v in a.items()}
            for a in schedd.query(constraint, list(projection), opts=opts)]
result({
    "flavor": ads(htcondor.QueryOpt.GroupBy, ["Flavor"]),
    "wanted": ads(htcondor.QueryOpt.GroupBy, ["Wanted"]),
    "chosen": ads(htcondor.QueryOpt.GroupBy, ["Flavor"], 'Flavor == "plum"'),
    "auto": ads(htcondor.QueryOpt.AutoCluster),
})
"""


def test_group_by_and_autoclusters_answer_as_htcondors_schedd(pool):
    mint, plum = pool.clusters
    r = bindings.run(pool, QUERIES)
    assert r.returncode == 0, r.stderr
    flavor = r.value["flavor"]
    assert flavor == [
        {"Flavor": "mint", "Id": 1, "JobCount": 3, "JobIds": f"{mint}.0 ... {mint}.2"},
        {"Flavor": "plum", "Id": 2, "JobCount": 2, "JobIds": f"{plum}.0 {plum}.1"},
    ]
    # Wanted reads RequestMemory: the groups are told apart by it too.
    wanted = [(a["Wanted"], a["RequestMemory"], a["JobCount"]) for a in r.value["wanted"]]
    assert sorted(wanted) == [("RequestMemory > 200", 128, 3), ("RequestMemory > 200", 256, 2)]
    assert [a["Flavor"] for a in r.value["chosen"]] == ["plum"]
    # The default autoclusters group the idle jobs (plum's held job is not among them).
    auto = sorted((a["RequestMemory"], a["JobCount"], a["JobIds"]) for a in r.value["auto"])
    assert auto == [(128, 3, f"{mint}.0 ... {mint}.2"), (256, 1, f"{plum}.0")]
    assert sorted(a["AutoClusterId"] for a in r.value["auto"]) == [1, 2]
    assert all("Requirements" in a and "JobUniverse" in a for a in r.value["auto"])


def test_condor_q_prints_the_autoclusters_and_the_groups(pool):
    mint, plum = pool.clusters
    table = pool.cli("condorx.cli.q", "-autocluster").stdout.splitlines()
    assert table[3] == "   ID COUNT UNIVERSE CPUS MEMORY     DISK REQUIREMENTS"
    lines = sorted(line.split()[1:5] for line in table[4:])
    assert lines == [["1", "Vanilla", "1", "256"], ["3", "Vanilla", "1", "128"]]
    grouped = pool.cli("condorx.cli.q", "-group-by", "-af", "Flavor", "JobCount", "JobIds")
    assert grouped.stdout.splitlines() == [
        f"mint 3 {mint}.0 ... {mint}.2",
        f"plum 2 {plum}.0 {plum}.1",
    ]
