"""Flocking between two real pools on loopback: HTCondor's own regression test
job_flocking_to.run (htcondor/htcondor, src/condor_tests: x_param.flocktestflockto and
x_param.flocktestlocal). The pool "flockto" has a collector, a negotiator, a schedd and a
startd of four slots; the pool "local" has no startd, and its schedd has FLOCK_TO naming
the other's central manager. A vanilla job submitted in the local pool must run in the
other and exit successfully, its events in its log and its output back.

HTCondor's test relies on host-based security (both pools on one host). Each condorx
pool has its own signing key, so the other pool's admin gives the local schedd a token,
as an IDTOKENS pool must (condor_token_create in the flockto pool, into the local pool's
SEC_TOKEN_SYSTEM_DIRECTORY), and names its identity in FLOCK_FROM.

A second test puts a central manager that never answers first in FLOCK_TO: the
submitter moves past it and its job runs in the pool after it."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import htcondor2
import pytest

from condorx.testing.pool import LocalPool, wait_for
from condorx.transport import locate

pytestmark = pytest.mark.daemons  # starts its own daemons

FLOCKTO = """
TRUST_DOMAIN = flockto.pool
FILESYSTEM_DOMAIN = flockto.fs
NUM_CPUS = 4
NEGOTIATOR_INTERVAL = 1
UPDATE_INTERVAL = 1
SCHEDD_INTERVAL = 1
FLOCK_FROM = flocker@*
"""

LOCAL = """
TRUST_DOMAIN = local.pool
SCHEDD_NAME = local-schedd@loopback
NEGOTIATOR_INTERVAL = 1
SCHEDD_INTERVAL = 1
SEC_TOKEN_SYSTEM_DIRECTORY = $(LOCAL_DIR)/tokens.d
FLOCK_TO = {flock_to}
"""

JOB = """\
universe = vanilla
executable = /bin/sh
arguments = "-c 'echo flocked; sleep 6'"
should_transfer_files = YES
when_to_transfer_output = ON_EXIT
output = job_flocking_to.out
error = job_flocking_to.err
log = job_flocking_to.log
queue
"""


@pytest.fixture
def roots() -> Iterator[tuple[Path, Path]]:
    with (
        tempfile.TemporaryDirectory(prefix="flockto") as b,
        tempfile.TemporaryDirectory(prefix="flocklocal") as a,
    ):
        yield Path(b), Path(a)


def _flockto(root: Path) -> LocalPool:
    pool = LocalPool(root, FLOCKTO)
    pool.start("collector", "negotiator", "schedd", "startd")
    return pool


def _local(root: Path, flockto: LocalPool, flock_to: str) -> LocalPool:
    """The local pool, holding the token the flockto pool made for its schedd."""
    tokens = root / "tokens.d"
    tokens.mkdir()
    flockto.cli(
        "condorx.cli.token:create",
        "-identity",
        "flocker@local.pool",
        "-authz",
        "ADVERTISE_SCHEDD",
        "-authz",
        "DAEMON",
        "-file",
        str(tokens / "flockto"),
    )
    pool = LocalPool(root, LOCAL.format(flock_to=flock_to))
    pool.start("collector", "negotiator", "schedd")
    return pool


def _collector_host(pool: LocalPool) -> str:
    return locate.collector_address(pool.cfg).strip().strip("<>").partition("?")[0]


def _events(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [e.type.name for e in htcondor2.JobEventLog(str(log)).events(stop_after=0)]


def _ran_in_flockto(local: LocalPool, flockto: LocalPool, level: int) -> None:
    local.submit(JOB)
    log = local.root / "job_flocking_to.log"

    def flocked() -> list[list[str]]:
        out = flockto.cli(
            "condorx.cli.status", "-submitters", "-af", "Name", "ScheddName", "RunningJobs"
        ).stdout
        return [line.split() for line in out.splitlines()]

    # While it runs, the flockto pool lists its submitter as any of its own, from the
    # local schedd, one job running.
    user = local.cfg.get("UID_DOMAIN")
    wait_for(lambda: any(r[1:] == ["local-schedd@loopback", "1"] for r in flocked()), "it", 60)
    names = [r[0] for r in flocked() if r[1] == "local-schedd@loopback"]
    assert names and all(n.endswith(f"@{user}") for n in names), names

    # At home, its submitter and its schedd show how far it flocked.
    def levels() -> list[str]:
        sub = local.cli("condorx.cli.status", "-submitters", "-af", "FlockLevel").stdout.split()
        schedd = local.cli(
            "condorx.cli.status", "-schedd", "-af", "FlockLevel", "MinFlockLevel", "MaxFlockLevel"
        ).stdout.split()
        return sub + schedd

    wait_for(lambda: levels() == [str(level), str(level), "0", str(level)], "flock levels", 30)
    wait_for(lambda: "JOB_TERMINATED" in _events(log), "the flocked job to end", 90)
    assert [e for e in _events(log) if e != "IMAGE_SIZE"] == ["SUBMIT", "EXECUTE", "JOB_TERMINATED"]
    events = list(htcondor2.JobEventLog(str(log)).events(stop_after=0))
    assert [e["ReturnValue"] for e in events if e.type.name == "JOB_TERMINATED"] == [0]
    # Its output came back from the other pool, where it ran.
    assert (local.root / "job_flocking_to.out").read_text() == "flocked\n"
    hosts = local.cli("condorx.cli.history", "-af", "LastRemoteHost").stdout.split()
    slots = flockto.cli("condorx.cli.status", "-af", "Name").stdout.split()
    assert len(hosts) == 1 and hosts[0] in slots, (hosts, slots)


def test_a_job_flocks_to_the_other_pool_and_comes_back_done(roots):
    b, a = roots
    flockto = _flockto(b)
    try:
        local = _local(a, flockto, _collector_host(flockto))
        try:
            _ran_in_flockto(local, flockto, 1)
            sched_log = Path(locate.log_dir(local.cfg), "SchedLog").read_text()
            assert "Increasing flock level for" in sched_log and "to 1 from 0" in sched_log
        finally:
            local.stop()
    finally:
        flockto.stop()


def test_a_pool_that_never_answers_is_passed_over(roots):
    b, a = roots
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # connections queue and are never answered
    flockto = _flockto(b)
    try:
        dead = f"127.0.0.1:{silent.getsockname()[1]}"
        local = _local(a, flockto, f"{dead}, {_collector_host(flockto)}")
        try:
            _ran_in_flockto(local, flockto, 2)
            # The local schedd kept answering meanwhile.
            assert local.cli("condorx.cli.q", "-af", "ClusterId").returncode == 0
            sched_log = Path(locate.log_dir(local.cfg), "SchedLog").read_text()
            assert f"cannot update the collector of flocked pool {dead}" in sched_log
        finally:
            local.stop()
    finally:
        flockto.stop()
        silent.close()
