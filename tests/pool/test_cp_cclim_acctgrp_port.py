"""HTCondor's own regression test job_cp_cclim_acctgrp_basic_van.run (htcondor/htcondor,
src/condor_tests) on a real pool, with its configuration: one partitionable slot under a
consumption policy, weighted by memory in quarters (six in all); groups a, b and c with
quotas 1, 2 and 3 and no surplus; c's jobs also under the concurrency limit yyz of 2.
The Perl test meant to see 1, 2 and 2 running (its string comparison, `==`, could not
fail); here each group's count is asserted, and that it stays so."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import LocalPool, wait_for

pytestmark = pytest.mark.daemons  # starts its own daemons

CONFIG = """
NUM_CPUS = 8
CONSUMPTION_POLICY = True
CONSUMPTION_CPUS = 1
CONSUMPTION_MEMORY = 25
CONSUMPTION_DISK = 100
SLOT_WEIGHT = floor(Memory / 25)
SLOT_TYPE_1 = cpus=8,memory=150,disk=100%
SLOT_TYPE_1_PARTITIONABLE = True
NUM_SLOTS_TYPE_1 = 1
MUST_MODIFY_REQUEST_EXPRS = False
CLAIM_PARTITIONABLE_LEFTOVERS = False
NEGOTIATOR_USE_SLOT_WEIGHTS = True
CLAIM_WORKLIFE = 0
MAXJOBRETIREMENTTIME = 3600
PREEMPT = False
RANK = 0
PREEMPTION_REQUIREMENTS = False
NEGOTIATOR_CONSIDER_PREEMPTION = False
YYZ_LIMIT = 2
GROUP_NAMES = a, b, c
GROUP_QUOTA_a = 1
GROUP_QUOTA_b = 2
GROUP_QUOTA_c = 3
GROUP_ACCEPT_SURPLUS = False
GROUP_AUTOREGROUP = False
NEGOTIATOR_INTERVAL = 2
SCHEDD_INTERVAL = 1
UPDATE_INTERVAL = 1
START = TRUE
"""

JOBS = """\
universe = vanilla
executable = /bin/sleep
arguments = 3600
request_memory = 25
accounting_group = a
queue 5
accounting_group = b
queue 5
accounting_group = c
concurrency_limits = yyz
queue 5
"""


@pytest.fixture
def pool() -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="cpcc") as d:
        p = LocalPool(Path(d), CONFIG)
        try:
            yield p
        finally:
            p.stop()


def running(pool: LocalPool) -> Counter[str]:
    out = pool.cli(
        "condorx.cli.q", "-af", "AcctGroup", "-constraint", "JobStatus == 2"
    ).stdout.split()
    return Counter(out)


def test_quotas_and_a_concurrency_limit_on_a_weighted_partitionable_slot(pool):
    pool.start("collector", "schedd", "startd")
    pool.submit(JOBS)
    pool.start("negotiator")
    wanted = {"a": 1, "b": 2, "c": 2}
    wait_for(lambda: running(pool) == wanted, f"{wanted} running", 90)
    # And no more: later cycles see the quotas and the limit held.
    log = pool.root / "log" / "NegotiatorLog"
    cycles = log.read_text().count("Started Negotiation Cycle")
    wait_for(
        lambda: log.read_text().count("Started Negotiation Cycle") >= cycles + 3,
        "three more cycles",
        60,
    )
    assert running(pool) == wanted
