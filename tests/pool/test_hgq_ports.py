"""HTCondor's own regression tests of hierarchical group quotas, on a real pool with
their knobs: src/condor_tests/job_hgq_autoregroup_basic_van.run (htcondor/htcondor).
Where the Perl compared one figure, every count is asserted here."""

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

QUICK = "NEGOTIATOR_INTERVAL = 2\nUPDATE_INTERVAL = 2\nSCHEDD_INTERVAL = 2\nSTART = TRUE\n"

# job_hgq_autoregroup_basic_van's configuration, as the test gives it (its intervals
# shortened; the HFS_ knobs are shadowed by the GROUP_QUOTA_ ones the parameter table
# sets, in HTCondor as here).
# Both tests turn preemption and slot weights off alike.
NO_PREEMPTION = """
MAXJOBRETIREMENTTIME = 3600 * 24
PREEMPT = False
PREEMPTION_REQUIREMENTS = False
RANK = 0
NEGOTIATOR_CONSIDER_PREEMPTION = False
NEGOTIATOR_USE_SLOT_WEIGHTS = FALSE
"""

AUTOREGROUP = (
    NO_PREEMPTION
    + """
CLAIM_WORKLIFE = 0
NUM_CPUS = 4
HFS_ROUND_ROBIN_RATE = 100000000
HFS_MAX_ALLOCATION_ROUNDS = 1
GROUP_NAMES = a, b
GROUP_QUOTA_a = 1
GROUP_QUOTA_b = 1
GROUP_ACCEPT_SURPLUS = FALSE
GROUP_AUTOREGROUP = TRUE
GROUP_SORT_EXPR = ifThenElse(AccountingGroup=?="a", 2, \
    ifThenElse(AccountingGroup=?="b", 1, 3.40282e+38))
"""
)

JOBS = """\
universe = vanilla
executable = /bin/sleep
arguments = 3600
+AccountingGroup="a.user"
queue 2
+AccountingGroup="b.user"
queue 2
"""


@pytest.fixture
def pool() -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="hgq") as d:
        p = LocalPool(Path(d), QUICK + AUTOREGROUP)
        try:
            yield p
        finally:
            p.stop()


def running_by_group(pool: LocalPool) -> Counter[str]:
    out = pool.cli(
        "condorx.cli.q", "-af", "AccountingGroup", "-constraint", "JobStatus == 2"
    ).stdout
    return Counter(line.strip() for line in out.splitlines() if line.strip())


def test_autoregroup_lets_each_group_past_its_quota_through_the_root(pool):
    """Four slots; a and b have a quota of one each and take no surplus, but regroup:
    each runs its one in its own turn, b first (GROUP_SORT_EXPR), then both compete for
    the root's two. Two jobs of each run."""
    pool.start("collector", "schedd", "startd")
    (pool.root / "jobs.sub").write_text(JOBS)
    pool.cli("condorx.cli.submit", "jobs.sub")
    pool.start("negotiator")
    wait_for(
        lambda: running_by_group(pool) == {"a.user": 2, "b.user": 2},
        "two jobs of each group running",
        120,
    )
    log = Path(locate.log_dir(pool.cfg), "NegotiatorLog").read_text()
    # The first cycle that saw both groups: b, then a, then the root with both.
    lines = re.findall(r"(Group \S+ - BEGIN NEGOTIATION|Negotiating with \S+)", log)
    first = lines.index("Group b - BEGIN NEGOTIATION")
    domain = pool.cfg.get("UID_DOMAIN") or pool.cfg.get("FULL_HOSTNAME")
    assert lines[first : first + 4] == [
        "Group b - BEGIN NEGOTIATION",
        f"Negotiating with b.user@{domain}",
        "Group a - BEGIN NEGOTIATION",
        f"Negotiating with a.user@{domain}",
    ]
    assert lines[first + 4] == "Group <none> - BEGIN NEGOTIATION"
    assert sorted(lines[first + 5 : first + 7]) == [
        f"Negotiating with a.user@{domain}",
        f"Negotiating with b.user@{domain}",
    ]


# job_hgq_negfail_basic_van's configuration: 40 static slots (condorx's default slot
# layout; the test's `use FEATURE : StaticSlots` says the same to HTCondor 24), two
# subtrees each managing their own half. The test meant to turn round robin on with
# HFS_ROUND_ROBIN_RATE, which the parameter table's GROUP_QUOTA_ROUND_ROBIN_RATE shadows
# (in HTCondor as here): the port sets the knob the negotiator reads.
NEGFAIL = (
    NO_PREEMPTION
    + """
SIM_MACHINES = 1
SIM_JOB_DURATION = 3600
NUM_CPUS = 40
GROUP_QUOTA_ROUND_ROBIN_RATE = 1.0
HFS_MAX_ALLOCATION_ROUNDS = 3
GROUP_NAMES = a, b, a.a, a.b, b.a, b.b
GROUP_QUOTA_DYNAMIC_a = 0.5
GROUP_QUOTA_DYNAMIC_b = 0.5
GROUP_QUOTA_DYNAMIC_a.a = 0.5
GROUP_QUOTA_DYNAMIC_a.b = 0.5
GROUP_QUOTA_DYNAMIC_b.a = 0.5
GROUP_QUOTA_DYNAMIC_b.b = 0.5
GROUP_ACCEPT_SURPLUS = TRUE
GROUP_ACCEPT_SURPLUS_a = FALSE
GROUP_ACCEPT_SURPLUS_b = FALSE
"""
)

NEGFAIL_JOBS = """\
universe = vanilla
executable = /bin/true
Requirements = (SlotID > 10)
+AccountingGroup = "a.a.user"
queue 20
Requirements = False
+AccountingGroup = "a.b.user"
queue 10
Requirements = (SlotID <= 10)
+AccountingGroup = "b.a.user"
queue 10
+AccountingGroup = "b.b.user"
queue 10
"""


def test_a_group_whose_jobs_match_nothing_leaves_its_quota_to_its_sibling(tmp_path):
    """a.b's jobs match no slot: allocation rounds give its share to a.a, which takes 20
    of the upper 30 slots (its subtree's half, no more: a takes no surplus). b.a and b.b
    share the ten lower slots their jobs want, round robin, five each."""
    pool = LocalPool(tmp_path, QUICK + NEGFAIL)
    try:
        pool.start("collector", "schedd", "sim")
        wait_for(
            lambda: len(pool.cli("condorx.cli.status", "-af", "Name").stdout.split()) == 40,
            "40 simulated slots",
        )
        (pool.root / "jobs.sub").write_text(NEGFAIL_JOBS)
        pool.cli("condorx.cli.submit", "jobs.sub")
        pool.start("negotiator")
        want = {"a.a.user": 20, "b.a.user": 5, "b.b.user": 5}
        wait_for(lambda: running_by_group(pool) == want, f"running jobs as {want}", 120)
    finally:
        pool.stop()
