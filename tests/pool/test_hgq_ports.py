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
AUTOREGROUP = """
CLAIM_WORKLIFE = 0
MAXJOBRETIREMENTTIME = 3600 * 24
PREEMPT = False
PREEMPTION_REQUIREMENTS = False
RANK = 0
NEGOTIATOR_CONSIDER_PREEMPTION = False
NEGOTIATOR_USE_SLOT_WEIGHTS = FALSE
NUM_CPUS = 4
HFS_ROUND_ROBIN_RATE = 100000000
HFS_MAX_ALLOCATION_ROUNDS = 1
GROUP_NAMES = a, b
GROUP_QUOTA_a = 1
GROUP_QUOTA_b = 1
GROUP_ACCEPT_SURPLUS = FALSE
GROUP_AUTOREGROUP = TRUE
GROUP_SORT_EXPR = ifThenElse(AccountingGroup=?="a", 2, ifThenElse(AccountingGroup=?="b", 1, 3.40282e+38))
"""

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
