"""The `htcondor` command of HTCondor's wheel (htcondor_cli), unchanged, on a condorx
pool: `htcondor job submit` and `htcondor job status` go through the bindings to the
schedd's CEDAR face."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing import bindings
from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for


def htcondor(pool, *argv: str) -> bindings.Result:
    """The command's run (its logger writes what it says to stderr)."""
    code = f"""
import sys
from htcondor_cli.cli import main
sys.argv = ["htcondor", *{list(argv)!r}]
main()
"""
    return bindings.run(pool, code)


def test_htcondor_job_submit_and_status(pool):
    (pool.root / "one.sub").write_text("executable = /bin/true\nrequest_memory = 256\nqueue\n")
    r = htcondor(pool, "job", "submit", "one.sub")
    assert r.returncode == 0, r.stderr
    words = (r.stdout + r.stderr).split()
    assert words[0] == "Job" and words[2:] == ["was", "submitted."]
    cluster = words[1]
    r = htcondor(pool, "job", "status", cluster)
    assert r.returncode == 0, r.stderr
    lines = (r.stdout + r.stderr).splitlines()
    assert lines[0] == f"Job {cluster} is currently idle."
    assert "It requested 256.000 MB of memory." in lines


# ---- the verbs that need jobs to run: a pool with a startd -----------------------------


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    root = tmp_path_factory.mktemp("clipool")
    daemons = ("collector", "negotiator", "startd", "schedd")
    with LocalPool.running(root, *daemons, config="CLASSAD_LIFETIME = 60\n" + QUICK_POOL) as p:
        yield p


def on_path(pool: LocalPool, *argv: str) -> bindings.Result:
    """The command with this environment's tools on PATH (condor_dagman), as a user's."""
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
    code = f"""
import sys
from htcondor_cli.cli import main
sys.argv = ["htcondor", *{list(argv)!r}]
main()
"""
    return bindings.run(pool, code, env={"PATH": path})


def said(r: bindings.Result) -> str:
    return r.stdout + r.stderr


def submitted(pool: LocalPool, name: str, text: str) -> str:
    (pool.root / name).write_text(text)
    r = on_path(pool, "job", "submit", name)
    assert r.returncode == 0, r.stderr
    return said(r).split()[1]


def status(pool: LocalPool, job: str) -> str:
    return pool.cli("condorx.cli.q", job, "-af", "JobStatus").stdout.strip()


def test_job_out_err_and_log_of_a_finished_job(running):
    pool = running
    text = "executable = /bin/sh\narguments = \"-c 'echo hello; echo oops >&2'\"\n"
    text += "output = hello.out\nerror = hello.err\nlog = hello.log\nqueue\n"
    job = submitted(pool, "hello.sub", text)
    wait_for(lambda: status(pool, job) == "", "the job to finish")
    assert "hello" in said(on_path(pool, "job", "out", job)).splitlines()
    assert "oops" in said(on_path(pool, "job", "err", job)).splitlines()
    assert "Job terminated." in said(on_path(pool, "job", "log", job))
    table = said(on_path(pool, "eventlog", "read", str(pool.root / "hello.log")))
    assert table.splitlines()[1].split()[0] == f"{job}.0"


def test_job_resources_running_idle_and_unknown(running):
    pool = running
    busy = submitted(pool, "busy.sub", "executable = /bin/sleep\narguments = 600\nqueue\n")
    idle = submitted(pool, "idle.sub", "executable = /bin/true\nrequirements = false\nqueue\n")
    wait_for(lambda: status(pool, busy) == "2", "the sleeper to run")
    r = on_path(pool, "job", "resources", busy)
    assert said(r).strip().startswith("Job is using resource slot"), said(r)
    assert f"Job {idle} is not running yet." in said(on_path(pool, "job", "resources", idle))
    assert "No jobs found for ID 999." in said(on_path(pool, "job", "resources", "999"))
    # The schedd's claims (QUERY_STARTD_ADS): the slot the sleeper runs on, busy.
    code = """
import htcondor2 as htcondor
claims = htcondor.Schedd().get_claims("true", ["Name", "Activity"])
unconstrained = htcondor.Schedd().get_claims()
result([[c["Name"], c["Activity"]] for c in claims] + [len(unconstrained)])
"""
    r = bindings.run(pool, code)
    assert r.returncode == 0, r.stderr
    *claims, unconstrained = r.value
    assert [activity for _, activity in claims] == ["Busy"] and claims[0][0].startswith("slot")
    # The wheel sends the constraint `None` when given none, which matches no claim on
    # HTCondor's schedd either: `htcondor ap claims` finds none there too.
    assert unconstrained == 0
    assert "No active claims" in said(on_path(pool, "ap", "claims"))
    machine = pool.cfg.get("FULL_HOSTNAME")

    def busy_slot() -> list[str] | None:
        # The collector hears of the claim at the startd's next update.
        lines = said(on_path(pool, "ep", "status", machine)).splitlines()
        claimed = any(line.split()[2:4] == ["Claimed", "Busy"] for line in lines[1:])
        return lines if claimed else None

    slots = wait_for(busy_slot, "the collector to show the busy slot")
    assert slots[0].split() == ["Slot", "Type", "State", "Activity", "Cpus", "Memory"]
    pool.cli("condorx.cli.act:rm", busy, idle)


def test_dag_submit_and_status(running):
    pool = running
    (pool.root / "node.sub").write_text("executable = /bin/sleep\narguments = 600\nqueue\n")
    (pool.root / "one.dag").write_text("JOB A node.sub\n")
    r = on_path(pool, "dag", "submit", "one.dag")
    assert r.returncode == 0 and said(r).startswith("DAG "), said(r)
    dag = said(r).split()[1]
    wait_for(
        lambda: pool.cli("condorx.cli.q", dag, "-af", "DAG_JobsSubmitted").stdout.strip() == "1",
        "DAGMan to submit its node",
    )
    text = said(on_path(pool, "dag", "status", dag))
    assert f"DAG {dag} [one.dag] has been running for" in text, text
    assert "DAG has submitted 1 job(s), of which:" in text
    pool.cli("condorx.cli.act:rm", dag)


def test_htcondor_ap_status_reads_the_schedds_duty_cycle(tmp_path):
    """`htcondor ap status` rates each access point by its schedd's
    RecentDaemonCoreDutyCycle (it stopped with a KeyError on condorx before)."""
    config = "SCHEDD_INTERVAL = 1\n"  # its ad made anew every second
    with LocalPool.running(tmp_path, "collector", "schedd", config=config) as pool:
        # A few seconds of the schedd's life to average over (its start is all work).
        def age() -> int:
            out = pool.cli("condorx.cli.status", "-schedd", "-af", "MonitorSelfAge").stdout
            return int(out) if out.strip().isdigit() else 0

        wait_for(lambda: age() >= 5, "five seconds of the schedd's life in its ad")
        r = htcondor(pool, "ap", "status")
    assert r.returncode == 0, r.stderr
    lines = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()]
    assert "Access Point" in lines[0] and "DutyCycle" in lines[0], lines
    host, health, duty = lines[1].split()
    assert "Good" in health, lines  # an idle schedd's loop waits nearly always
    assert duty.endswith("%") and 0.0 <= float(duty[:-1]) <= 100.0, lines
