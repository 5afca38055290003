"""A real pool's dumps as a simulated pool: its machines from `condor_status -l`
(SIM_MACHINE_ADS), its queue from `condor_q -l` (`condorx sim jobs`); the real
collector, negotiator and schedd then drain that queue on those machines."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_sim_pool import simulated, status

from condorx.language.config.errors import ConfigError
from condorx.sim import pool_dump, queue_dump
from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for

pytestmark = pytest.mark.daemons  # starts its own daemons

DUMPS = Path(__file__).parent / "dumps"
GTHAIN = DUMPS / "gthain-status.ads"


# -- the machines ----------------------------------------------------------------------------


def test_a_status_dump_gives_its_machines_and_slots_as_they_were():
    (m,) = pool_dump.load(GTHAIN)
    assert m.machine.hostname == "gthain.localdomain" and m.machine.cpus == 8
    assert m.machine.memory_mb == 15661 and m.machine.opsys == "LINUX"
    assert [s.id for s in m.slots] == list(range(1, 9))
    assert {(s.kind, s.cpus, s.memory, s.disk) for s in m.slots} == {("Static", 1, 1957, 16190387)}
    attrs = m.slots[1].attrs
    # What the machine is stays; what the moment was goes.
    assert attrs["has_avx2"] is True and attrs["OpSysAndVer"] == "Fedora33"
    assert attrs["HardwareAddress"] == "40:ec:99:82:52:b2"
    for gone in ("State", "Activity", "MyAddress", "LastHeardFrom", "CurrentRank", "Start"):
        assert gone not in attrs
    assert {k: v.text for k, v in m.slots[0].policy.items()} == {
        "Start": "true",
        "Rank": "0.0",
        "MaxJobRetirementTime": "0",
    }


PSLOTS = """\
MyType = "Machine"
Name = "slot1@big.example.org"
Machine = "big.example.org"
SlotID = 1
SlotType = "Partitionable"
PartitionableSlot = true
Cpus = 4
Memory = 8000
Disk = 100000
TotalSlotCpus = 64
TotalSlotMemory = 256000
TotalSlotDisk = 5000000
TotalCpus = 64
TotalMemory = 256000
Start = TARGET.Owner =!= "mallory"
HasGluster = true

MyType = "Machine"
Name = "slot1_7@big.example.org"
Machine = "big.example.org"
SlotID = 1
SlotType = "Dynamic"
Cpus = 60
Memory = 248000
Disk = 4900000
RemoteUser = "alice@example.org"
"""


def test_a_partitionable_slot_comes_whole_and_its_dynamic_slots_are_left_out(tmp_path):
    dump = tmp_path / "status.ads"
    dump.write_text(PSLOTS)
    (m,) = pool_dump.load(dump)
    (slot,) = m.slots
    assert (slot.kind, slot.cpus, slot.memory, slot.disk) == ("Partitionable", 64, 256000, 5000000)
    assert slot.policy["Start"].text == 'TARGET.Owner isnt "mallory"'  # as classad2 unparses
    assert slot.attrs["HasGluster"] is True


@pytest.mark.parametrize(
    "text, says",
    [
        (
            'MyType = "Machine"\nName = "slot1@a"\nMachine = "a"\nCpus = 1\nMemory = 1\nDisk = 1\n',
            "ad 1: SlotID is not an integer",
        ),
        (
            'MyType = "Machine"\nSlotID = 1\nCpus = 1\nMemory = 1\nDisk = 1\n',
            "ad 1: Machine is not a string",
        ),
        (
            'MyType = "Machine"\nSlotID = 1\nMachine = "a"\nCpus = "many"\nMemory = 1\nDisk = 1\n',
            "ad 1: Cpus is not a number",
        ),
        ('MyType = "Job"\nClusterId = 1\n', "has no slot ads"),
        ("Name = [\n", "not ClassAds"),
    ],
)
def test_a_dump_that_cannot_be_simulated_is_refused_by_file_and_ad(tmp_path, text, says):
    dump = tmp_path / "status.ads"
    dump.write_text(text)
    with pytest.raises(ConfigError) as e:
        pool_dump.load(dump)
    assert str(dump) in str(e.value) and says in str(e.value)


def test_a_simulator_with_a_dump_it_cannot_use_stops_with_the_reason(tmp_path):
    pool = LocalPool(tmp_path, QUICK_POOL + f"SIM_MACHINE_ADS = {tmp_path / 'missing.ads'}\n")
    r = subprocess.run(
        [sys.executable, "-m", "condorx.daemons", "sim"],
        env=pool.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "configuration error: SIM_MACHINE_ADS: cannot read" in r.stderr


# -- the queue -------------------------------------------------------------------------------


def test_a_queue_dump_keeps_each_job_under_its_owner_without_its_moment():
    q = queue_dump.load(DUMPS / "fnal-dune-history.ads")
    assert q.owners == {"jmalbos", "lebrun"} and q.jobs == 2 and not q.skipped
    by_owner = {c.owner: c for c in q.clusters}
    ad = by_owner["lebrun"].cluster
    assert ad["Owner"] == "lebrun" and ad["JobStatus"] == 1
    assert "DESIRED_usage_model" in ad["Requirements"].text  # its own requirements, as written
    assert ad["x509UserProxyVOName"] == "dune"
    for gone in (
        "LastRemoteHost",
        "MATCH_GLIDEIN_Schedd",
        "StartdPrincipal",
        "ClusterId",
        "GlobalJobId",
        "QDate",
        "NumJobMatches",
        "CurrentHosts",
        "RecentBlockWrites",
    ):
        assert gone not in ad


QUEUE = """\
MyType = "Job"
ClusterId = 7
ProcId = {proc}
Owner = "{owner}"
JobStatus = {status}
JobUniverse = {universe}
Cmd = "/home/{owner}/analyze"
UserLog = "/home/{owner}/job.log"
RequestCpus = 1
RequestMemory = 1024
RequestDisk = 1000
Requirements = TARGET.has_avx2 && TARGET.OpSysAndVer == "Fedora33" && TARGET.Memory >= RequestMemory
RemoteHost = "slot3@elsewhere"
{extra}
"""


def _queue_dump(path: Path) -> None:
    ads = []
    for proc, owner in enumerate(["alice"] * 6 + ["bob"] * 6):
        ads.append(QUEUE.format(proc=proc, owner=owner, status=1, universe=5, extra=""))
    ads.append(QUEUE.format(proc=12, owner="bob", status=2, universe=5, extra=""))  # running
    done = "RemoteWallClockTime = 3.0\nCompletionDate = 1700000000"
    ads.append(QUEUE.format(proc=13, owner="carol", status=4, universe=5, extra=done))
    ads.append(QUEUE.format(proc=14, owner="carol", status=5, universe=5, extra=""))  # held
    ads.append(QUEUE.format(proc=15, owner="carol", status=3, universe=5, extra=""))  # removed
    ads.append(QUEUE.format(proc=16, owner="carol", status=1, universe=7, extra=""))  # scheduler
    path.write_text("\n".join(ads))


@pytest.fixture
def dumped_pool() -> Iterator[LocalPool]:
    with simulated(
        f"SIM_MACHINE_ADS = {GTHAIN}\nSIM_JOB_DURATION = uniform(1, 2)\n"
        "QUEUE_SUPER_USER_MAY_IMPERSONATE = .*\n"
    ) as p:
        yield p


def test_a_real_pools_machines_drain_a_real_queue_through_the_real_daemons(dumped_pool):
    pool = dumped_pool
    wait_for(lambda: len(status(pool)) == 8, "the dump's 8 slots in the collector")
    rows = status(pool, "has_avx2", "OpSysAndVer", "State", "MyAddress")
    assert sorted(r[0] for r in rows) == [f"slot{i}@gthain.localdomain" for i in range(1, 9)]
    assert {(r[1], r[2], r[3]) for r in rows} == {("true", "Fedora33", "Unclaimed")}
    assert all("127.0.0.1" in r[4] for r in rows)  # the simulator's address, not the dump's

    _queue_dump(pool.root / "queue.ads")
    r = subprocess.run(
        [sys.executable, "-m", "condorx.cli.main", "sim", "jobs", "queue.ads", "--dir", "."],
        env=pool.env,
        cwd=pool.root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == (
        "15 job(s) of 3 owner(s) submitted in 3 cluster(s);"
        " left out: 1 removed, 1 scheduler, local or grid universe."
    )

    def history() -> list[list[str]]:
        out = pool.cli("condorx.cli.history", "-af", "Owner", "LastRemoteHost", "ExitCode")
        return [line.split() for line in out.stdout.splitlines()]

    wait_for(lambda: len(history()) == 14, "the 14 jobs that may run to finish", timeout=120)
    done = history()
    assert Counter(r[0] for r in done) == {"alice": 6, "bob": 7, "carol": 1}
    assert {r[1].split("@")[1] for r in done} == {"gthain.localdomain"}
    assert {r[2] for r in done} == {"0"}
    held = pool.cli("condorx.cli.q", "-allusers", "-af", "Owner", "JobStatus").stdout.split()
    assert held == ["carol", "5"]
    # The completed job ran again for as long as it had run; the rest drew theirs.
    walls = pool.cli(
        "condorx.cli.history", "-af", "Owner", "SimDuration", "RemoteWallClockTime"
    ).stdout.splitlines()
    carol = [w.split() for w in walls if w.startswith("carol")]
    assert carol[0][1] == "3.0" and float(carol[0][2]) >= 3.0
    assert not (pool.root / "home").exists()  # nothing written where the real jobs' logs were
