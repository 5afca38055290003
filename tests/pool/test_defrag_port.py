"""condor_defrag on a real pool: HTCondor's own regression test defrag.run
(htcondor/htcondor, src/condor_tests), with its knobs and its four startds (one of static
slots, three partitionable, each with its DrainRank), its intervals shortened. Every
outcome is asserted: which machine is drained and which never is, the job a drain
evicts and the one it spares, and the defrag daemon's ad in the collector."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import htcondor2
import pytest

from condorx.testing.pool import LocalPool, wait_for

pytestmark = pytest.mark.daemons  # starts its own daemons

HOST = socket.getfqdn()
COMMON = f"""
NEGOTIATOR_INTERVAL = 1
UPDATE_INTERVAL = 1
SCHEDD_INTERVAL = 1
FULL_HOSTNAME = {HOST}
NUM_CPUS = 2
MaxJobRetirementTime = 0
MachineMaxVacateTime = 10
DrainRank = 1
STARTD_ATTRS = DrainRank
DEFRAG_INTERVAL = 2
DEFRAG_UPDATE_INTERVAL = 1
DEFRAG_REQUIREMENTS = DrainRank < 4
DEFRAG_RANK = DrainRank
# defrag.run's 360 an hour at a poll every 10 s is one a poll; so is this at 2 s.
DEFRAG_DRAINING_MACHINES_PER_HOUR = 1800
"""


def partitionable(i: int) -> str:
    local = f"S{i}"
    return (
        f"{local}.STARTD_NAME = startd{i}\n"
        f"{local}.STARTD_ADDRESS_FILE = $(LOG)/.startd_address.{local}\n"
        f"{local}.STARTD_LOG = $(LOG)/StartLog.{local}\n"
        f"{local}.EXECUTE = $(LOCAL_DIR)/execute{i}\n"
        f"{local}.SLOT_TYPE_1 = 100%\n{local}.NUM_SLOTS_TYPE_1 = 1\n"
        f"{local}.SLOT_TYPE_1_PARTITIONABLE = true\n{local}.DrainRank = {i}\n"
    )


@pytest.fixture
def pool() -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="defrag") as d:
        for i in (2, 3, 4):
            (Path(d) / f"execute{i}").mkdir()
        p = LocalPool(Path(d), COMMON + "".join(partitionable(i) for i in (2, 3, 4)))
        try:
            yield p
        finally:
            p.stop()


JOB = (
    "executable = /bin/sleep\narguments = 100\nrequest_memory = 1\nlog = {name}.log\n"
    "requirements = {where} && ((NumJobStarts ?: 0) < 1)\nqueue\n"
)


def test_defrag_drains_the_best_ranked_busy_machine_and_spares_the_rest(pool):
    startds = ["startd", "startd:S2", "startd:S3", "startd:S4"]
    pool.start("collector", "schedd", "negotiator", *startds)
    names = lambda: pool.cli("condorx.cli.status", "-af", "Name").stdout.split()  # noqa: E731
    wait_for(lambda: len(names()) == 5, "two static slots and three partitionable ones", 60)
    spared = pool.submit(JOB.format(name="spared", where="DrainRank >= 4"), name="spared.sub")
    evicted = pool.submit(JOB.format(name="evicted", where="DrainRank == 3"), name="evicted.sub")

    def running() -> list[str]:
        out = pool.cli("condorx.cli.q", "-af", "ClusterId", "-constraint", "JobStatus == 2")
        return sorted(out.stdout.split())

    wait_for(lambda: running() == sorted([str(spared), str(evicted)]), "both jobs running", 60)
    pool.start("defrag")

    # defrag.run: the job on startd3 (DrainRank 3, the best busy machine it may drain)
    # is evicted, and cannot start again; the one on startd4 (DrainRank 4) runs on.
    def evictions(name: str) -> int:
        log = pool.root / f"{name}.log"
        return sum(
            e.type == htcondor2.JobEventType.JOB_EVICTED
            for e in htcondor2.JobEventLog(str(log)).events(stop_after=0)
        )

    wait_for(lambda: evictions("evicted") == 1, "the drain to evict the job on startd3", 60)
    assert running() == [str(spared)]
    assert evictions("spared") == 0

    # Its ad says what it did: the drain it started, first, of startd3's slot.
    def defrag_ad() -> dict:
        out = pool.cli(
            "condorx.cli.status",
            "-any",
            "-af",
            "Name",
            "DrainSuccesses",
            "-constraint",
            'MyType == "Defrag"',
        ).stdout.split()
        return {"name": out[0], "successes": int(out[1])} if len(out) == 2 else {}

    ad = wait_for(lambda: defrag_ad().get("successes", 0) >= 1, "the defrag ad") and defrag_ad()
    assert ad["name"].startswith("defrag@")
    drained = pool.cli(
        "condorx.cli.status",
        "-any",
        "-af",
        "RecentDrainsList[0].who",
        "-constraint",
        'MyType == "Defrag"',
    ).stdout.strip()
    assert drained == f"slot1@startd3@{HOST}"
    # startd4 (DrainRank 4) is never drained; startd1 has no partitionable slot.
    never = pool.cli(
        "condorx.cli.status", "-af", "Name", "-constraint", "Draining =?= true"
    ).stdout.split()
    assert not any("startd4" in n for n in never) and not any(
        n.startswith("slot1@" + HOST) for n in never
    )
