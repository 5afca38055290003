"""A simulated pool shared by accounting group under quotas (HTCondor's admin manual,
"Hierarchical Group Quotas"), through the real collector, negotiator, schedd and startds:
jobs submitted with accounting_group run in their group's share of the pool, the slots
show the group they run for, and the negotiator logs each group's figures."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing import bindings
from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for
from condorx.transport import locate, security

pytestmark = pytest.mark.daemons  # starts its own daemons

BASE = QUICK_POOL.replace("NUM_CPUS = 2\n", "") + (
    "SIM_MACHINES = 25\nNUM_CPUS = 2\nSIM_JOB_DURATION = 3600\n"
    "GROUP_NAMES = group_physics, group_chemistry\n"
)


@pytest.fixture
def sim_pool() -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="simgroups") as d:
        p = LocalPool(Path(d))
        try:
            yield p
        finally:
            p.stop()


def configure(pool: LocalPool, text: str) -> None:
    with open(pool.config_file, "a") as f:
        f.write(BASE + text)
    pool.reload()


def submit(pool: LocalPool, user: str, group: str, count: int) -> None:
    (pool.root / f"{user}.sub").write_text(
        f"executable = /bin/true\naccounting_group = {group}\n"
        f"accounting_group_user = {user}\nqueue {count}\n"
    )
    env = dict(pool.env)
    key = Path(locate.pool_key_file(pool.cfg)).read_bytes().strip()
    env["CONDORX_TOKEN"] = security.make_token(key, user)
    pool.cli("condorx.cli.submit", f"{user}.sub", env=env)


def busy_by_group(pool: LocalPool) -> Counter[str]:
    out = pool.cli("condorx.cli.status", "-af", "Activity", "AccountingGroup").stdout
    rows = [line.split() for line in out.splitlines()]
    return Counter(r[1] for r in rows if r and r[0] == "Busy")


def running_by_group(pool: LocalPool) -> Counter[str]:
    out = pool.cli(
        "condorx.cli.q", "-allusers", "-constraint", "JobStatus == 2", "-af", "AcctGroup"
    ).stdout
    return Counter(line.strip() for line in out.splitlines() if line.strip())


# The accountant's group records as HTCondor's own client reads them (condor_userprio's
# GET_PRIORITY), once its charge shows what the groups hold.
GROUP_RECORDS = """
import time, htcondor2 as htcondor
wanted = {"group_physics": 30, "group_chemistry": 15}
deadline = time.time() + 90
while True:
    ads = htcondor.Negotiator().getPriorities()
    rows = {a["Name"]: dict(a) for a in ads if a.get("IsAccountingGroup")}
    if all(rows.get(g, {}).get("ResourcesUsed") == n for g, n in wanted.items()):
        break
    if time.time() > deadline:
        raise SystemExit(f"the group records never showed {wanted}: {rows}")
    time.sleep(0.5)
result(rows)
"""


def slots_up(pool: LocalPool) -> int:
    return len(pool.cli("condorx.cli.status", "-af", "Name").stdout.split())


def test_static_quotas_hold_each_group_to_its_share(sim_pool):
    """50 slots; physics may have 30 and chemistry 15, neither takes surplus: with 100
    jobs each waiting, the pool runs exactly 30 and 15, and five slots stay free."""
    configure(sim_pool, "GROUP_QUOTA_group_physics = 30\nGROUP_QUOTA_group_chemistry = 15\n")
    sim_pool.start("collector", "schedd", "sim")
    wait_for(lambda: slots_up(sim_pool) == 50, "50 simulated slots in the collector")
    submit(sim_pool, "alice", "group_physics", 100)
    submit(sim_pool, "bob", "group_chemistry", 100)
    sim_pool.start("negotiator")
    want = {"group_physics.alice": 30, "group_chemistry.bob": 15}
    wait_for(lambda: busy_by_group(sim_pool) == want, f"slots busy as {want}", 120)
    wait_for(
        lambda: running_by_group(sim_pool) == {"group_physics": 30, "group_chemistry": 15},
        "the schedd's jobs running by group",
        60,
    )
    log = Path(locate.log_dir(sim_pool.cfg), "NegotiatorLog").read_text()
    assert "group quotas: group_physics quota 30 requested 100" in log
    r = bindings.run(sim_pool, GROUP_RECORDS)
    assert r.returncode == 0, r.stderr
    physics = r.value["group_physics"]
    assert physics["AccountingGroup"] == "<none>"
    assert (physics["EffectiveQuota"], physics["ConfigQuota"]) == (30.0, 30.0)
    assert (physics["SurplusPolicy"], physics["Requested"]) == ("no", 100.0)
    assert r.value["<none>"]["ResourcesUsed"] == 0


def test_dynamic_quotas_give_the_surplus_to_the_group_that_accepts_it(sim_pool):
    """Half the pool each, but chemistry asks for only 5: physics, which accepts
    surplus, takes its 25 and the 20 chemistry leaves; the pool fills."""
    configure(
        sim_pool,
        "GROUP_QUOTA_DYNAMIC_group_physics = 0.5\nGROUP_QUOTA_DYNAMIC_group_chemistry = 0.5\n"
        "GROUP_ACCEPT_SURPLUS_group_physics = true\n",
    )
    sim_pool.start("collector", "schedd", "sim")
    wait_for(lambda: slots_up(sim_pool) == 50, "50 simulated slots in the collector")
    submit(sim_pool, "alice", "group_physics", 100)
    submit(sim_pool, "bob", "group_chemistry", 5)
    sim_pool.start("negotiator")
    want = {"group_physics.alice": 45, "group_chemistry.bob": 5}
    wait_for(lambda: busy_by_group(sim_pool) == want, f"slots busy as {want}", 120)


def test_a_group_under_its_quota_preempts_one_over_its_own(sim_pool):
    """The manual's recipe for quotas that reclaim their share: alice's group took the
    whole pool as surplus; when bob's group asks, PREEMPTION_REQUIREMENTS lets it take
    slots back from a group over its quota, up to its own quota."""
    configure(
        sim_pool,
        "SIM_MACHINES = 5\n"
        "GROUP_QUOTA_DYNAMIC_group_physics = 0.5\nGROUP_QUOTA_DYNAMIC_group_chemistry = 0.5\n"
        "GROUP_ACCEPT_SURPLUS = true\n"
        "PREEMPTION_REQUIREMENTS = (SubmitterGroupResourcesInUse < SubmitterGroupQuota)"
        " && (RemoteGroupResourcesInUse > RemoteGroupQuota)\n",
    )
    sim_pool.start("collector", "schedd", "sim")
    wait_for(lambda: slots_up(sim_pool) == 10, "10 simulated slots in the collector")
    submit(sim_pool, "alice", "group_physics", 20)
    sim_pool.start("negotiator")
    wait_for(
        lambda: busy_by_group(sim_pool) == {"group_physics.alice": 10},
        "alice's group holding the whole pool",
        120,
    )
    submit(sim_pool, "bob", "group_chemistry", 10)
    sim_pool.cli("condorx.cli.reschedule")
    want = {"group_physics.alice": 5, "group_chemistry.bob": 5}
    wait_for(lambda: busy_by_group(sim_pool) == want, f"slots busy as {want}", 120)
    log = Path(locate.log_dir(sim_pool.cfg), "NegotiatorLog").read_text()
    assert "group quotas: group_chemistry quota 5 requested 10" in log
