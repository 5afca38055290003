"""Consumption policies on a real pool: HTCondor's own regression test
job_consumption_policies_basic_van.run (htcondor/htcondor, src/condor_tests), with its
configuration: four partitionable slots, each with its own policy and slot weight (by
cores; by memory in quarters; by licence tokens alone, taking no core; the whole slot at
once). Its thirteen one-core jobs fill them in one negotiation cycle, each slot used
until it runs out: five, four, three and one."""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import LocalPool, wait_for
from condorx.transport import locate

pytestmark = pytest.mark.daemons  # starts its own daemons

CONFIG = """
NEGOTIATOR_INTERVAL = 2
UPDATE_INTERVAL = 1
SCHEDD_INTERVAL = 1
START = TRUE
NUM_CPUS = 20
MACHINE_RESOURCE_tokens = 3
CONSUMPTION_POLICY = True
CONSUMPTION_CPUS = ifthenelse(target.Cpus isnt undefined, quantize(target.Cpus, {1}), 1)
CONSUMPTION_MEMORY = ifthenelse(target.Memory isnt undefined, quantize(target.Memory, {1}), 1)
CONSUMPTION_DISK = ifthenelse(target.Disk isnt undefined, quantize(target.Disk, {100}), 100)
CONSUMPTION_TOKENS = ifthenelse(target.Tokens isnt undefined, target.Tokens, 0)
SLOT_WEIGHT = Cpus
SLOT_TYPE_1 = cpus=5,memory=100,disk=25%,tokens=0
SLOT_TYPE_1_PARTITIONABLE = True
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = cpus=5,memory=100,disk=25%,tokens=0
SLOT_TYPE_2_PARTITIONABLE = True
NUM_SLOTS_TYPE_2 = 1
SLOT_TYPE_2_CONSUMPTION_MEMORY = quantize(target.RequestMemory, {25})
SLOT_TYPE_2_SLOT_WEIGHT = floor(Memory / 25)
SLOT_TYPE_3 = cpus=5,memory=100,disk=25%,tokens=3
SLOT_TYPE_3_PARTITIONABLE = True
NUM_SLOTS_TYPE_3 = 1
SLOT_TYPE_3_CONSUMPTION_TOKENS = 1
SLOT_TYPE_3_CONSUMPTION_CPUS = 0
SLOT_TYPE_3_CONSUMPTION_MEMORY = 0
SLOT_TYPE_3_CONSUMPTION_DISK = 0
SLOT_TYPE_3_SLOT_WEIGHT = Tokens
SLOT_TYPE_4 = cpus=5,memory=100,disk=25%,tokens=0
SLOT_TYPE_4_PARTITIONABLE = True
NUM_SLOTS_TYPE_4 = 1
SLOT_TYPE_4_CONSUMPTION_CPUS = TotalSlotCpus
SLOT_TYPE_4_CONSUMPTION_MEMORY = TotalSlotMemory
SLOT_TYPE_4_CONSUMPTION_DISK = floor(0.9 * Disk)
SLOT_TYPE_4_CONSUMPTION_TOKENS = TotalSlotTokens
MUST_MODIFY_REQUEST_EXPRS = False
NEGOTIATOR_USE_SLOT_WEIGHTS = True
"""

JOBS = """\
universe = vanilla
executable = /bin/sleep
arguments = 3600
request_cpus = 1
request_memory = 1
request_disk = 1
queue 13
"""


@pytest.fixture
def pool() -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="cp") as d:
        p = LocalPool(Path(d), CONFIG)
        try:
            yield p
        finally:
            p.stop()


def test_each_slot_takes_what_its_policy_says_in_one_cycle(pool):
    pool.start("collector", "schedd", "startd")
    pslots = lambda: pool.cli(  # noqa: E731
        "condorx.cli.status", "-af", "Name", "-constraint", "PartitionableSlot"
    ).stdout.split()
    wait_for(lambda: len(pslots()) == 4, "the four partitionable slots", 60)
    pool.submit(JOBS)
    pool.start("negotiator")

    def running() -> Counter[str]:
        out = pool.cli(
            "condorx.cli.q", "-af", "RemoteHost", "-constraint", "JobStatus == 2"
        ).stdout.split()
        return Counter(host.split("_")[0] for host in out)

    wanted = {"slot1": 5, "slot2": 4, "slot3": 3, "slot4": 1}
    wait_for(lambda: running() == wanted, f"{wanted} jobs running", 90)
    # All thirteen in one cycle, as the test requires.
    log = Path(locate.log_dir(pool.cfg), "NegotiatorLog").read_text()
    assert re.search(r"cycle: 13 matches", log), log[-2000:]

    # What each dynamic slot took: a core each on slot1; a quarter of the memory on
    # slot2; a token and no core on slot3; the whole of slot4. The startd's ads reach the
    # collector after the claims do, so wait for all thirteen before comparing.
    def took() -> Counter[tuple[str, ...]]:
        out = pool.cli(
            "condorx.cli.status",
            "-af",
            "Name",
            "Cpus",
            "Memory",
            "tokens",
            "-constraint",
            'SlotType == "Dynamic"',
        ).stdout.splitlines()
        return Counter((n.split("_")[0], c, m, t) for n, c, m, t in (line.split() for line in out))

    wait_for(lambda: sum(took().values()) == 13, "thirteen dynamic slot ads", 60)
    assert took() == {
        ("slot1", "1", "1", "0"): 5,
        ("slot2", "1", "25", "0"): 4,
        ("slot3", "0", "0", "1"): 3,
        ("slot4", "5", "100", "0"): 1,
    }
