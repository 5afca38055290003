"""HTCondor's own regression test of concurrency limits, test_concurrency_limits.py
(htcondor/htcondor, src/condor_tests), on a real pool: its four limits (a named one, the
default, and the defaults of two tags), on twelve static slots and on one partitionable
slot of twelve cores, its intervals of one second.

Where HTCondor's test runs one limit per pool and allows one job over the limit (its
negotiator can count a slot's tokens only once its ad shows them), here the four run in
one pool at once and the count must be exact: the negotiator remembers the limits of
the matches it handed out until their slots' ads show them. Every count is asserted: the
jobs running of each limit at the end and at every moment of the user log, the slots'
ConcurrencyLimits, the accountant's ConcurrencyLimit_<name>, the negotiator's log line
for a job a limit holds back, and a freed token going to the next job."""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import htcondor2
import pytest

from condorx.testing.pool import LocalPool, wait_for
from condorx.transport import locate

pytestmark = pytest.mark.daemons  # starts its own daemons

QUICK = (
    "NEGOTIATOR_INTERVAL = 1\nUPDATE_INTERVAL = 1\nSCHEDD_INTERVAL = 1\nSTART = TRUE\n"
    "NUM_CPUS = 12\n"
    # The four limits of HTCondor's test.
    "XSW_LIMIT = 4\nCONCURRENCY_LIMIT_DEFAULT = 2\n"
    "CONCURRENCY_LIMIT_DEFAULT_SMALL = 3\nCONCURRENCY_LIMIT_DEFAULT_LARGE = 1\n"
)
SLOT_CONFIGS = {
    "static_slots": "",
    "partitionable_slot": (
        "SLOT_TYPE_1 = cpus=100%,memory=100%,disk=100%\n"
        "SLOT_TYPE_1_PARTITIONABLE = True\nNUM_SLOTS_TYPE_1 = 1\n"
    ),
}
# submit value -> (its name as counted, how many may run at once)
LIMITS = {
    "XSW": ("xsw", 4),
    "UNDEFINED:2": ("undefined", 1),
    "small.license": ("small.license", 3),
    "large.license": ("large.license", 1),
}


@pytest.fixture(params=list(SLOT_CONFIGS))
def pool(request) -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="cclim") as d:
        p = LocalPool(Path(d), QUICK + SLOT_CONFIGS[request.param])
        try:
            yield p
        finally:
            p.stop()


def submit_each_limit(pool: LocalPool) -> dict[str, int]:
    """(most + 1) * 2 jobs under each limit, as HTCondor's test submits; their clusters."""
    clusters = {}
    for value, (_, most) in LIMITS.items():
        text = (
            "executable = /bin/sleep\narguments = 3600\nrequest_memory = 100MB\n"
            f"request_disk = 10MB\nconcurrency_limits = {value}\nlog = jobs.log\n"
            f"queue {(most + 1) * 2}\n"
        )
        clusters[value] = pool.submit(text, name=f"{value.replace(':', '_')}.sub")
    return clusters


def running(pool: LocalPool) -> Counter[str]:
    out = pool.cli(
        "condorx.cli.q", "-af", "ConcurrencyLimits", "-constraint", "JobStatus == 2"
    ).stdout
    return Counter(line.strip() for line in out.splitlines() if line.strip())


def most_at_once(log: Path, by_cluster: dict[int, str]) -> Counter[str]:
    """The most jobs of each limit the user log shows running at one moment."""
    now: Counter[str] = Counter()
    most: Counter[str] = Counter()
    for event in htcondor2.JobEventLog(str(log)).events(stop_after=0):
        limit = by_cluster[event.cluster]
        if event.type == htcondor2.JobEventType.EXECUTE:
            now[limit] += 1
            most[limit] = max(most[limit], now[limit])
        elif event.type in (
            htcondor2.JobEventType.JOB_TERMINATED,
            htcondor2.JobEventType.JOB_EVICTED,
            htcondor2.JobEventType.JOB_ABORTED,
            htcondor2.JobEventType.JOB_HELD,
        ):
            now[limit] -= 1
    return most


def test_no_limit_runs_more_jobs_than_it_allows(pool):
    pool.start("collector", "schedd", "startd", "negotiator")
    clusters = submit_each_limit(pool)
    wanted = {value.lower(): most for value, (_, most) in LIMITS.items()}
    wait_for(lambda: running(pool) == wanted, f"exactly {wanted} running", 120)

    # The claimed slots say what their jobs hold (once their ads reach the collector).
    def slots_say() -> Counter[str]:
        out = pool.cli(
            "condorx.cli.status", "-af", "ConcurrencyLimits", "-constraint", 'State == "Claimed"'
        ).stdout
        return Counter(line.strip() for line in out.splitlines())

    wait_for(lambda: slots_say() == wanted, f"the claimed slots to show {wanted}", 30)

    # The accountant's counts, as condor_userprio -l shows them.
    def limits_reported() -> dict[str, str]:
        text = pool.cli("condorx.cli.userprio", "-l").stdout
        return dict(re.findall(r"^(ConcurrencyLimit_\w+) = (\S+)$", text, re.M))

    reported = {
        "ConcurrencyLimit_xsw": "4.0",
        "ConcurrencyLimit_undefined": "2.0",
        "ConcurrencyLimit_small_license": "3.0",
        "ConcurrencyLimit_large_license": "1.0",
    }
    wait_for(lambda: limits_reported() == reported, f"userprio -l to show {reported}", 30)

    # The negotiator says why the others wait.
    log = Path(locate.log_dir(pool.cfg), "NegotiatorLog")
    for name, _ in LIMITS.values():
        wait_for(
            lambda name=name: f": concurrency limit {name} reached" in log.read_text(),
            f"a rejection for {name} in the NegotiatorLog",
            30,
        )

    # The schedd heard why: condor_q -better-analyze tells it, as HTCondor's does.
    def told() -> str:
        return pool.cli(
            "condorx.cli.q",
            "-af",
            "ClusterId",
            "ProcId",
            "-constraint",
            'LastRejMatchReason =?= "concurrency limit xsw reached"',
        ).stdout.strip()

    job = wait_for(told, "a waiting xsw job to record why it waits", 30).splitlines()[0]
    analysis = pool.cli("condorx.cli.q", job.replace(" ", "."), "-better-analyze").stdout
    assert "Reason for last match failure: concurrency limit xsw reached\n" in analysis
    assert "Last failed match: " in analysis

    # A token given back goes to the next job of its limit, and no further.
    first_xsw = pool.cli(
        "condorx.cli.q",
        "-af",
        "ClusterId",
        "ProcId",
        "-constraint",
        f"JobStatus == 2 && ClusterId == {clusters['XSW']}",
    ).stdout.split()
    gone = f"{first_xsw[0]}.{first_xsw[1]}"
    pool.cli("condorx.cli.act:rm", gone)

    def replaced() -> bool:
        still = pool.cli("condorx.cli.q", gone, "-af", "JobStatus").stdout.split()
        return still in ([], ["3"]) and running(pool) == wanted

    wait_for(replaced, "the next xsw job to take the freed token", 60)
    by_cluster = {c: value.lower() for value, c in clusters.items()}
    assert most_at_once(pool.root / "jobs.log", by_cluster) == wanted
