"""condorx sim whatif: a pool's machines and queue replayed in the negotiator's core under
two configurations. The outcomes the real daemons reach in test_sim_groups (the
simulated pool, its real collector, negotiator and schedd) are the what-if's too."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorx.language.config import Config
from condorx.sim import whatif
from condorx.testing.tools import run_tool

GROUPS = "GROUP_NAMES = group_physics, group_chemistry\n"


def machines(path: Path, count: int, cpus: int = 1, partitionable: bool = False) -> Path:
    ads = []
    for m in range(count):
        ads.append(
            f'MyType = "Machine"\nName = "slot1@m{m}"\nMachine = "m{m}"\nSlotID = 1\n'
            f"Cpus = {cpus}\nMemory = {1024 * cpus}\nDisk = 1000000\nStart = true\n"
            + ('PartitionableSlot = true\nSlotType = "Partitionable"\n' if partitionable else "")
        )
    path.write_text("\n".join(ads))
    return path


def queue(path: Path, *owners: tuple[str, str, int], extra: str = "") -> Path:
    ads = []
    for cluster, (owner, group, count) in enumerate(owners, 1):
        for proc in range(count):
            ads.append(
                f'MyType = "Job"\nOwner = "{owner}"\nClusterId = {cluster}\nProcId = {proc}\n'
                f'JobStatus = 1\nJobUniverse = 5\nAccountingGroup = "{group}.{owner}"\n'
                f"RequestCpus = 1\nRequestMemory = 100\nRequestDisk = 100\n"
                f"Requirements = true\n{extra}"
            )
    path.write_text("\n".join(ads))
    return path


def replay(tmp_path: Path, config: str, slots: Path, jobs: Path) -> whatif.Outcome:
    cfg = Config.from_text(config)
    return whatif.replay(cfg, whatif.machines(cfg, slots), whatif.jobs(jobs))


def test_static_quotas_run_what_the_real_pool_runs(tmp_path):
    """test_sim_groups' first case: 50 slots, quotas 30 and 15, no surplus."""
    slots = machines(tmp_path / "status.ads", 50)
    jobs = queue(
        tmp_path / "q.ads", ("alice", "group_physics", 100), ("bob", "group_chemistry", 100)
    )
    config = GROUPS + "GROUP_QUOTA_group_physics = 30\nGROUP_QUOTA_group_chemistry = 15\n"
    o = replay(tmp_path, config, slots, jobs)
    assert o.running == {"group_physics": 30, "group_chemistry": 15}
    assert o.idle == {"group_physics": 70, "group_chemistry": 85}
    assert o.quotas == {"group_physics": 30.0, "group_chemistry": 15.0, "<none>": 5.0}
    assert (o.slots, o.cycles) == (50, 2)


def test_surplus_goes_where_the_real_pool_sends_it(tmp_path):
    """test_sim_groups' second case: half each, physics accepts surplus, chemistry asks
    for 5: 45 and 5."""
    slots = machines(tmp_path / "status.ads", 50)
    jobs = queue(tmp_path / "q.ads", ("alice", "group_physics", 100), ("bob", "group_chemistry", 5))
    config = GROUPS + (
        "GROUP_QUOTA_DYNAMIC_group_physics = 0.5\nGROUP_QUOTA_DYNAMIC_group_chemistry = 0.5\n"
        "GROUP_ACCEPT_SURPLUS_group_physics = true\n"
    )
    o = replay(tmp_path, config, slots, jobs)
    assert o.running == {"group_physics": 45, "group_chemistry": 5}
    assert o.idle == {"group_physics": 55}


def test_partitionable_slots_give_what_they_carved_from_cycle_to_cycle(tmp_path):
    """Two 8-core partitionable machines, quotas of 12 and 4 cores: each core a job."""
    slots = machines(tmp_path / "status.ads", 2, cpus=8, partitionable=True)
    jobs = queue(tmp_path / "q.ads", ("alice", "group_physics", 20), ("bob", "group_chemistry", 20))
    config = GROUPS + "GROUP_QUOTA_group_physics = 12\nGROUP_QUOTA_group_chemistry = 4\n"
    o = replay(tmp_path, config, slots, jobs)
    assert o.running == {"group_physics": 12, "group_chemistry": 4}


def test_a_concurrency_limit_holds_across_cycles(tmp_path):
    slots = machines(tmp_path / "status.ads", 10)
    jobs = queue(
        tmp_path / "q.ads", ("alice", "group_physics", 10), extra='ConcurrencyLimits = "lic"\n'
    )
    o = replay(tmp_path, "LIC_LIMIT = 3\n", slots, jobs)  # no groups: all in <none>
    assert o.running == {"<none>": 3} and o.idle == {"<none>": 7} and o.quotas == {}


def test_the_command_prints_each_group_before_and_after(tmp_path):
    machines(tmp_path / "status.ads", 50)
    queue(tmp_path / "q.ads", ("alice", "group_physics", 100), ("bob", "group_chemistry", 100))
    before = tmp_path / "before.conf"
    before.write_text(GROUPS + "GROUP_QUOTA_group_physics = 30\nGROUP_QUOTA_group_chemistry = 15\n")
    after = tmp_path / "after.conf"
    after.write_text("GROUP_QUOTA_group_physics = 10\nGROUP_QUOTA_group_chemistry = 40\n")
    args = ["whatif", "--machine-ads", "status.ads", "--jobs", "q.ads", "--after", str(after)]
    env = {"CONDORX_CONFIG": str(before), "PATH": "/usr/bin:/bin"}
    r = run_tool("condorx.cli.sim:sim", args, env, tmp_path, "condorx sim")
    assert r.returncode == 0, r.stderr
    rows = [line.split() for line in r.stdout.splitlines()[2:]]
    assert rows == [
        ["<none>", "5.0", "0", "0", "0.0", "0", "0", "+0"],
        ["group_chemistry", "15.0", "15", "85", "40.0", "40", "60", "+25"],
        ["group_physics", "30.0", "30", "70", "10.0", "10", "90", "-20"],
        ["Total", "45", "155", "50", "150", "+5"],
        ["50", "slots;", "2", "and", "2", "negotiation", "cycles", "from", "an", "empty", "pool."],
    ]


@pytest.mark.parametrize("which", ["--machine-ads", "--jobs"])
def test_a_dump_that_is_not_one_is_named(tmp_path, which):
    machines(tmp_path / "status.ads", 1)
    queue(tmp_path / "q.ads", ("alice", "group_physics", 1))
    (tmp_path / "bad.ads").write_text('MyType = "Machine"\nName = 3\nMachine = "m"\n')
    (tmp_path / "after.conf").write_text(GROUPS)
    files = {"--machine-ads": "status.ads", "--jobs": "q.ads", which: "bad.ads"}
    args = ["whatif", *[x for kv in files.items() for x in kv], "--after", "after.conf"]
    r = run_tool("condorx.cli.sim:sim", args, {"PATH": "/usr/bin:/bin"}, tmp_path, "condorx sim")
    assert r.returncode == 1 and "bad.ads" in r.stderr and "Traceback" not in r.stderr, r.stderr
