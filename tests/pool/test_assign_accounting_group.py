"""`use FEATURE : AssignAccountingGroup(map_file[, check_request])` on a real schedd: its
user map, job transform, submit requirements and immutable attributes, through
condor_submit, condor_q and condor_qedit, and through HTCondor's own bindings.

The first part is HTCondor's own regression test, map_user_to_groups_metaknob_test.run
(htcondor/htcondor, src/condor_tests): the same map files, submit file and
`condor_q -af:, AccountingGroup AcctGroup`, one schedd start per map file as there."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing import bindings
from condorx.testing.pool import LocalPool
from condorx.transport.security import current_user

pytestmark = pytest.mark.daemons  # starts its own daemons

OWNER = current_user()
# As the Perl test's: held, so that nothing runs (there is no startd here either).
JOB = "executable = /bin/sleep\narguments = 600\nhold = True\nqueue\n"
REFUSED = "ERROR: Failed to commit job submission into the queue."


@pytest.fixture
def make_pool() -> Iterator:
    pools: list[LocalPool] = []

    def make(map_text: str, check_request: bool | None, extra: str = "") -> LocalPool:
        root = Path(tempfile.mkdtemp(prefix="aag"))
        (root / "groups.map").write_text(map_text)
        args = str(root / "groups.map")
        if check_request is not None:
            args += f", {check_request}"
        p = LocalPool(root, f"use FEATURE : AssignAccountingGroup({args})\n{extra}")
        pools.append(p)
        p.start("collector", "schedd")
        return p

    yield make
    for p in pools:
        p.stop()


def submit(pool: LocalPool, *args: str) -> tuple[int, str]:
    (pool.root / "job.sub").write_text(JOB)
    r = pool.cli("condorx.cli.submit", "job.sub", *args, check=False)
    return r.returncode, r.stdout + r.stderr


def groups(pool: LocalPool) -> list[str]:
    out = pool.cli("condorx.cli.q", "-af:,", "AccountingGroup", "AcctGroup").stdout
    return out.splitlines()


def test_the_metaknob_regression_test_of_htcondor(make_pool):
    # The owner in the map: cs, the first of the list.
    pool = make_pool(f"* {OWNER} cs,condor\n", False)
    assert submit(pool)[0] == 0
    assert groups(pool) == [f"cs.{OWNER}, cs"]
    pool.stop()
    # The owner not in the map: refused. The requirement's _REASON is undefined here
    # (strcat of the undefined RequestedAcctGroup, as classad2 has it too), so the
    # schedd says what HTCondor's then says.
    pool = make_pool("* foo cs,condor\n", False)
    code, said = submit(pool)
    assert code == 1 and groups(pool) == []
    assert said.strip().splitlines() == [
        REFUSED,
        "ERROR: Submit requirement AssignAccountingGroup not met.",
    ]
    pool.stop()
    # A line with no group maps nothing: refused.
    pool = make_pool(f"* {OWNER} \n", False)
    assert submit(pool)[0] == 1 and groups(pool) == []
    pool.stop()
    # Several lines: the owner's own. A group of the list that was asked for is given;
    # with check_request false, one not in the list gives the first of it.
    pool = make_pool(f"* foo1 abc,123\n* foo2 abc,456\n* {OWNER} def,789\n", False)
    assert submit(pool, "accounting_group=789")[0] == 0
    assert groups(pool) == [f"789.{OWNER}, 789"]
    pool.cli("condorx.cli.act:rm", "-all")
    assert submit(pool, "accounting_group=not")[0] == 0
    assert f"def.{OWNER}, def" in groups(pool)


def test_a_group_asked_for_and_not_in_the_list_is_refused_by_default(make_pool):
    pool = make_pool(f"* /^{OWNER[:2]}/ physics,chemistry\n", None)
    code, said = submit(pool, "accounting_group=biology")
    assert code == 1
    assert "ERROR: Permission denied setting accounting_group to biology" in said
    assert submit(pool, "accounting_group=chemistry")[0] == 0
    assert submit(pool)[0] == 0
    assert sorted(groups(pool)) == [f"chemistry.{OWNER}, chemistry", f"physics.{OWNER}, physics"]
    # The accounting attributes are immutable once set (IMMUTABLE_JOB_ATTRS).
    r = pool.cli("condorx.cli.edit:qedit", "-all", "AccountingGroup", '"x.y"', check=False)
    assert r.returncode != 0
    assert sorted(groups(pool)) == [f"chemistry.{OWNER}, chemistry", f"physics.{OWNER}, physics"]


def test_htcondors_bindings_meet_the_same_rules(make_pool):
    pool = make_pool(f"* {OWNER} physics\n", None)
    out = bindings.run(
        pool,
        """
        import htcondor2 as htcondor
        schedd = htcondor.Schedd()
        job = {"executable": "/bin/sleep", "arguments": "600", "hold": "true"}
        done = {}
        for asked in (None, "physics", "biology"):
            sub = htcondor.Submit(job if asked is None else {**job, "accounting_group": asked})
            try:
                done[str(asked)] = schedd.submit(sub).cluster()
            except Exception as e:
                done[str(asked)] = str(e)
        ads = schedd.query("true", ["ClusterId", "AccountingGroup", "AcctGroupUser"])
        result({"done": done, "ads": sorted([a["AccountingGroup"], a["AcctGroupUser"]]
                                            for a in ads)})
        """,
    )
    assert out.returncode == 0, out.stderr
    done, ads = out.value["done"], out.value["ads"]
    assert isinstance(done["None"], int) and isinstance(done["physics"], int)
    assert "Permission denied setting accounting_group to biology" in done["biology"]
    assert ads == [[f"physics.{OWNER}", OWNER], [f"physics.{OWNER}", OWNER]]


def test_a_warning_requirement_lets_the_job_in_and_says_why(make_pool):
    warn = (
        "SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) SmallJobs\n"
        "SUBMIT_REQUIREMENT_SmallJobs = RequestMemory <= 1024\n"
        'SUBMIT_REQUIREMENT_SmallJobs_REASON = "big jobs wait longer"\n'
        "SUBMIT_REQUIREMENT_SmallJobs_IS_WARNING = true\n"
    )
    pool = make_pool(f"* {OWNER} physics\n", None, warn)
    code, said = submit(pool, "request_memory=4096")
    assert code == 0
    assert (
        "WARNING: Committed job submission into the queue with the following warning(s):\n"
        "WARNING: big jobs wait longer"
    ) in said
    assert groups(pool) == [f"physics.{OWNER}, physics"]
