"""condorx's per-resource group quotas on a real pool: a partitionable machine of eight
cores and four GPUs, a group whose core quota would run six of its GPU jobs and whose
GPU quota runs two. The other two wait, saying why, cycle after cycle; the group's
CPU-only jobs still take the cores its quota leaves."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import LocalPool, wait_for
from condorx.transport import locate

pytestmark = pytest.mark.daemons  # starts its own daemons

CONFIG = """
NEGOTIATOR_INTERVAL = 1
UPDATE_INTERVAL = 1
SCHEDD_INTERVAL = 1
NUM_CPUS = 8
MEMORY = 8192
MACHINE_RESOURCE_GPUs = CUDA0, CUDA1, CUDA2, CUDA3
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_1 = 100%
SLOT_TYPE_1_PARTITIONABLE = True
START = TRUE
GROUP_NAMES = group_ml, group_sim
GROUP_QUOTA_group_ml = 6
GROUP_QUOTA_group_sim = 2
GROUP_RESOURCE_QUOTA_group_ml = GPUs:2
"""

JOBS = """\
universe = vanilla
executable = /bin/sleep
arguments = 3600
accounting_group = group_ml
accounting_group_user = ann
request_cpus = 1
request_memory = 10
request_disk = 10
request_gpus = {gpus}
queue {count}
"""


@pytest.fixture
def pool() -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="rq") as d:
        p = LocalPool(Path(d), CONFIG)
        try:
            yield p
        finally:
            p.stop()


def test_a_group_runs_its_gpu_quota_and_its_cores_go_to_cpu_jobs(pool):
    pool.start("collector", "schedd", "startd")
    wait_for(
        lambda: pool.cli("condorx.cli.status", "-af", "GPUs").stdout.split() == ["4"],
        "the partitionable slot with its four GPUs",
    )
    pool.submit(JOBS.format(gpus=1, count=4), name="gpu.sub")
    pool.start("negotiator")

    def running() -> list[str]:
        return pool.cli(
            "condorx.cli.q", "-af", "RequestGPUs", "-constraint", "JobStatus == 2"
        ).stdout.split()

    wait_for(lambda: running() == ["1", "1"], "two GPU jobs running", 60)
    log = Path(locate.log_dir(pool.cfg), "NegotiatorLog")
    seen = log.read_text().count("Started Negotiation Cycle")
    # Three more cycles, and still two: the running jobs hold the quota.
    wait_for(lambda: log.read_text().count("Started Negotiation Cycle") >= seen + 3, "three cycles")
    assert running() == ["1", "1"]
    waiting = pool.cli(
        "condorx.cli.q", "-af", "LastRejMatchReason", "-constraint", "JobStatus == 1"
    ).stdout.splitlines()
    # One job of the group waiting is told why, as HTCondor's negotiator rejects one job
    # of an autocluster.
    assert waiting == ["group group_ml's GPUs quota reached", "undefined"]
    assert "Rejected 1.2 group_ml.ann@" in log.read_text()
    # The slot and the schedd heard the job's own limits only (it has none).
    limits = pool.cli(
        "condorx.cli.q", "-af", "MatchedConcurrencyLimits", "-constraint", "JobStatus == 2"
    ).stdout.split()
    assert limits == ["undefined", "undefined"]
    # CPU-only jobs of the group take the rest of its core quota: six cores in all.
    pool.submit(JOBS.format(gpus=0, count=6), name="cpu.sub")
    wait_for(lambda: sorted(running()) == ["0"] * 4 + ["1"] * 2, "four CPU jobs beside", 60)
