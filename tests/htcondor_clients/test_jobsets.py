"""Job sets (USE_JOBSETS) as HTCondor's clients use them: the wheel's `htcondor jobset`
verbs, unchanged, and the bindings' submit, which sends the set's ad with the qmgmt call
SendJobQueueAd as condor_submit does (htcondor2/schedd.cpp, submit.cpp)."""

from __future__ import annotations

import getpass
from collections.abc import Iterator

import pytest

from condorx.testing import bindings
from condorx.testing.pool import LocalPool

# Two clusters of two jobs each, from one table; the second renames its variables.
JOBSET = """\
name = Fruit
iterator = table color,size {
red, 1
blue, 2
}
job {
executable = /bin/true
arguments = $(color) $(size)
queue
}
job c=color {
executable = /bin/echo
arguments = $(c)
queue
}
"""


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    """Collector and schedd with job sets on: jobs stay idle, sets stay put."""
    root = tmp_path_factory.mktemp("jobsets")
    with LocalPool.running(root, "collector", "schedd", config="USE_JOBSETS = true\n") as p:
        yield p


def htcondor(pool: LocalPool, *argv: str) -> str:
    code = f"""
import sys
from htcondor_cli.cli import main
sys.argv = ["htcondor", *{list(argv)!r}]
main()
"""
    r = bindings.run(pool, code)
    assert r.returncode == 0, r.stderr
    return r.stdout + r.stderr


def test_jobset_submit_list_status_and_remove(pool):
    (pool.root / "fruit.set").write_text(JOBSET)
    said = htcondor(pool, "jobset", "submit", "fruit.set")
    assert "Submitted job set Fruit containing 2 job clusters." in said, said
    rows = pool.cli("condorx.cli.q", "-af", "ClusterId", "ProcId", "JobSetId", "JobSetName", "Args")
    jobs = [line.split() for line in rows.stdout.splitlines()]
    first = jobs[0][0]
    # Both clusters are in the set the first one started; names are the table's rows.
    assert [j[2:4] for j in jobs] == [[first, "Fruit"]] * 4
    assert [j[4:] for j in jobs] == [["red", "1"], ["blue", "2"], ["red"], ["blue"]]
    assert htcondor(pool, "jobset", "list").split() == ["JOB_SET_NAME", "Fruit"]
    me = getpass.getuser()
    everyone = htcondor(pool, "jobset", "list", "--allusers").split()
    assert everyone == ["OWNER", "JOB_SET_NAME", me, "Fruit"]
    status = htcondor(pool, "jobset", "status", "fruit")  # names compare without case
    assert "Fruit currently has 4 jobs idle, 0 jobs running, and 0 jobs completed." in status
    second = jobs[2][0]
    assert f"\tJob cluster {first} with 2 total jobs" in status
    assert f"\tJob cluster {second} with 2 total jobs" in status
    said = htcondor(pool, "jobset", "remove", "Fruit")
    assert f"Removed 4 jobs matching job set Fruit for user {me}." in said, said
    # Idle jobs leave the queue when removed, and the set with its last job.
    assert "No active job sets found." in htcondor(pool, "jobset", "list")
    assert "No active job sets found" in htcondor(pool, "jobset", "status", "Fruit")


def test_the_bindings_send_the_set_ad_and_a_second_submit_joins(pool):
    code = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
one = schedd.submit(htcondor.Submit({"executable": "/bin/true", "JOBSET.Name": "Veg"}))
two = schedd.submit(htcondor.Submit({"executable": "/bin/true", "MY.JobSetName": '"veg"'}))
sets = schedd.query('MyType == "JobSet"', opts=htcondor.QueryOpts.IncludeJobsetAds)
jobs = schedd.query("true", ["ClusterId", "JobSetId", "JobSetName"])
result([one.cluster(), two.cluster(),
        [[s["JobSetId"], s["JobSetName"], s["NumIdle"], s["RefCount"]] for s in sets],
        sorted([j["ClusterId"], j["JobSetId"], j["JobSetName"]] for j in jobs)])
"""
    r = bindings.run(pool, code)
    assert r.returncode == 0, r.stderr
    one, two, sets, jobs = r.value
    assert sets == [[one, "Veg", 2, 2]]
    # Each job keeps the name it was submitted with; the set is the first cluster's.
    assert jobs == [[one, one, "Veg"], [two, one, "veg"]]
    pool.cli("condorx.cli.act:rm", str(one), str(two))
