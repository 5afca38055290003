"""The pool simulator beside a real collector, negotiator and schedd: its machines are
advertised as startds are, matched, claimed and run through the real protocol, and a
simulated job is removed from its slot as a real one is."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_sim_policy import GPU_MACHINES

from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for

SIM = "SIM_MACHINES = 5\nNUM_CPUS = 4\nSIM_JOB_DURATION = 1\n"


@contextmanager
def simulated(config: str) -> Iterator[LocalPool]:
    """A quick pool with simulated machines in place of a startd, as `config` has them."""
    with tempfile.TemporaryDirectory(prefix="sim") as d:
        p = LocalPool(Path(d), QUICK_POOL.replace("NUM_CPUS = 2\n", "") + config)
        try:
            p.start("collector", "negotiator", "schedd", "sim")
            yield p
        finally:
            p.stop()


@pytest.fixture
def pool() -> Iterator[LocalPool]:
    with simulated(SIM) as p:
        yield p


def status(pool: LocalPool, *attrs: str) -> list[list[str]]:
    out = pool.cli("condorx.cli.status", "-af", "Name", *attrs).stdout
    return [line.split() for line in out.splitlines()]


def submit(pool: LocalPool, text: str) -> int:
    (pool.root / "job.sub").write_text(text)
    out = pool.cli("condorx.cli.submit", "job.sub").stdout
    return int(out.strip().split()[-1].rstrip("."))


def history(pool: LocalPool, *attrs: str) -> list[list[str]]:
    out = pool.cli("condorx.cli.history", "-af", "ClusterId", "ProcId", *attrs).stdout
    return [line.split() for line in out.splitlines()]


def test_simulated_machines_run_a_queue_through_the_real_daemons(pool):
    wait_for(lambda: len(status(pool)) == 20, "20 simulated slots in the collector")
    names = sorted(row[0] for row in status(pool))
    assert names[0].startswith("slot1@sim1.") and len({n.split("@")[1] for n in names}) == 5
    c = submit(pool, "executable = /bin/true\nqueue 40\n")
    wait_for(lambda: len(history(pool)) == 40, "the 40 jobs to run", timeout=120)
    rows = history(pool, "ExitCode", "LastRemoteHost", "NumJobStarts")
    assert {r[0] for r in rows} == {str(c)} and {r[2] for r in rows} == {"0"}
    hosts = {r[3].split("@")[1] for r in rows}
    assert hosts <= {n.split("@")[1] for n in names} and len(hosts) >= 2
    assert {r[4] for r in rows} == {"1"}  # each ran once


def test_a_simulated_job_is_removed_from_its_slot(pool):
    wait_for(lambda: len(status(pool)) == 20, "20 simulated slots in the collector")
    c = submit(pool, "executable = /bin/true\n+SimDuration = 3600\nqueue\n")
    running = f"{c}.0"
    wait_for(
        lambda: any(
            r[1] == "Claimed" and r[2] == "Busy" for r in status(pool, "State", "Activity")
        ),
        "the job to run on a simulated slot",
    )
    pool.cli("condorx.cli.act:rm", running)
    wait_for(lambda: [r[:2] for r in history(pool)] == [[str(c), "0"]], "the job to leave")
    wait_for(
        lambda: all(r[2] != "Busy" for r in status(pool, "State", "Activity")),
        "the slot to be idle again",
    )


GPU_POOL = "SIM_MACHINES = 2\nSIM_JOB_DURATION = 3600\n" + GPU_MACHINES


def test_gpu_jobs_get_the_simulated_gpus_one_each_through_the_negotiator():
    with simulated(GPU_POOL) as pool:
        wait_for(lambda: len(status(pool)) == 2, "the 2 partitionable slots")
        c = submit(pool, "executable = /bin/true\nrequest_gpus = 1\nrequest_cpus = 1\nqueue 6\n")
        fields = ("SlotType", "Activity", "GPUs", "AssignedGPUs")

        def dynamic() -> list[list[str]]:
            rows = status(pool, *fields)  # a slot with no GPU left has AssignedGPUs ""
            return [r for r in rows if r[1:3] == ["Dynamic", "Busy"]]

        # Two GPUs a machine: four jobs run, the other two wait with 2 cpus still free.
        wait_for(lambda: len(dynamic()) == 4, "four GPU jobs running")
        rows = dynamic()
        assert {r[3] for r in rows} == {"1"}
        per_machine: dict[str, set[str]] = {}
        for r in rows:
            per_machine.setdefault(r[0].split("@")[1], set()).add(r[4])
        assert list(per_machine.values()) == [{"CUDA0", "CUDA1"}] * 2
        parents = [r for r in status(pool, "SlotType", "GPUs", "Cpus") if r[1] == "Partitionable"]
        assert [r[2:] for r in parents] == [["0", "2"]] * 2
        q = pool.cli("condorx.cli.q", "-af", "ClusterId", "JobStatus").stdout.split("\n")
        assert sorted(line.split()[1] for line in q if line) == ["1", "1", "2", "2", "2", "2"]
        assert all(line.split()[0] == str(c) for line in q if line)
