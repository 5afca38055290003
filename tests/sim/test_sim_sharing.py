"""A simulated pool shared out: between users by fair share, and between two negotiators
by their slot and job constraints (HTCondor's recipe for the largest pools), through the
real collector, negotiator(s) and schedd."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for
from condorx.transport import locate, security

pytestmark = pytest.mark.daemons  # starts its own daemons

BASE = QUICK_POOL.replace("NUM_CPUS = 2\n", "")


@pytest.fixture
def sim_pool() -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="simshare") as d:
        p = LocalPool(Path(d))
        try:
            yield p
        finally:
            p.stop()


def configure(pool: LocalPool, text: str) -> None:
    with open(pool.config_file, "a") as f:
        f.write(BASE + text)
    pool.reload()


def status(pool: LocalPool, *attrs: str) -> list[list[str]]:
    out = pool.cli("condorx.cli.status", "-af", "Name", *attrs).stdout
    return [line.split() for line in out.splitlines()]


def submit(pool: LocalPool, text: str, user: str | None = None) -> int:
    (pool.root / "job.sub").write_text(text)
    env = dict(pool.env)
    if user is not None:
        key = Path(locate.pool_key_file(pool.cfg)).read_bytes().strip()
        env["CONDORX_TOKEN"] = security.make_token(key, user)
    out = pool.cli("condorx.cli.submit", "job.sub", env=env).stdout
    return int(out.strip().split()[-1].rstrip("."))


def busy_by_user(pool: LocalPool) -> Counter[str]:
    rows = status(pool, "Activity", "RemoteUser")
    return Counter(r[2].split("@")[0] for r in rows if r[1] == "Busy")


def test_fifty_simulated_machines_are_shared_evenly_between_two_users(sim_pool):
    """100 slots, 150 hour-long jobs from each of two users of equal priority: the pool
    fills, half for each (HTCondor's pie slices), give or take what one cycle's
    rounding gives."""
    configure(sim_pool, "SIM_MACHINES = 50\nNUM_CPUS = 2\nSIM_JOB_DURATION = 3600\n")
    sim_pool.start("collector", "schedd", "sim")
    wait_for(lambda: len(status(sim_pool)) == 100, "100 simulated slots in the collector")
    submit(sim_pool, "executable = /bin/true\nqueue 150\n", user="alice")
    submit(sim_pool, "executable = /bin/true\nqueue 150\n", user="bob")
    # Both queues are there before the first cycle: alice's coming first earns her no
    # more than her share.
    sim_pool.start("negotiator")
    wait_for(lambda: sum(busy_by_user(sim_pool).values()) == 100, "all 100 slots busy", 120)
    shares = busy_by_user(sim_pool)
    assert set(shares) == {"alice", "bob"}
    assert abs(shares["alice"] - shares["bob"]) <= 10, shares


TWO = """\
SIM_MACHINES = 4
NUM_CPUS = 4
SIM_JOB_DURATION = 1
NEGOTIATOR_SLOT_CONSTRAINT = regexp("^sim[12][.]", Machine)
NEGOTIATOR_JOB_CONSTRAINT = Half =!= "second"
NEG2.NEGOTIATOR_SLOT_CONSTRAINT = regexp("^sim[34][.]", Machine)
NEG2.NEGOTIATOR_JOB_CONSTRAINT = Half =?= "second"
NEG2.NEGOTIATOR_LOG = $(LOG)/Negotiator2Log
"""


def test_two_negotiators_each_match_their_own_slots_and_jobs(sim_pool):
    configure(sim_pool, TWO)
    sim_pool.start("collector", "negotiator", "negotiator:NEG2", "schedd", "sim")
    wait_for(lambda: len(status(sim_pool)) == 16, "16 simulated slots in the collector")
    # Hour-long jobs, fewer than each negotiator's 8 slots: each runs where its match put
    # it (a claim is reused for the user's next job, whatever negotiator made it).
    long = "executable = /bin/true\n+SimDuration = 3600\n"
    first = submit(sim_pool, long + "queue 6\n")
    second = submit(sim_pool, long + '+Half = "second"\nqueue 6\n')

    def running() -> list[list[str]]:
        out = sim_pool.cli("condorx.cli.q", "-af", "ClusterId", "JobStatus", "RemoteHost").stdout
        return [line.split() for line in out.splitlines() if line.split()[1] == "2"]

    wait_for(lambda: len(running()) == 12, "the 12 jobs to run", timeout=120)
    hosts: dict[str, set[str]] = {}
    for cluster, _status, host in running():
        hosts.setdefault(cluster, set()).add(host.split("@")[1].split(".")[0])
    assert hosts[str(first)] <= {"sim1", "sim2"} and hosts[str(second)] <= {"sim3", "sim4"}
    names = sim_pool.cli("condorx.cli.status", "-negotiator", "-af", "Name").stdout.split()
    assert sorted(n.split("@")[0] for n in names) == ["neg2", "negotiator"]
    logs = sim_pool.root / "log"
    for log in ("NegotiatorLog", "Negotiator2Log"):
        assert " matches, " in (logs / log).read_text(), log
