"""Toil's HTCondor batch system, unchanged, on a condorx personal pool: toil 9.6 drives
HTCondor through its legacy Python bindings (htcondor 24.0.24, module `htcondor`):
Schedd.transaction() and Submit.queue to submit, xquery to follow, edit and act to finish
each job. A small workflow of three jobs, a parent's results passed to its child through
Toil's file job store, completes as on HTCondor."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from condorx.testing import bindings

WORKFLOW = """\
import sys
from toil.common import Toil
from toil.job import Job


def greet(job, name):
    return f"hello {name}"


def merge(job, first, second):
    return f"{first}; {second}"


def root(job):
    a = job.addChildJobFn(greet, "ada", cores=1, memory="100M", disk="10M")
    b = job.addChildJobFn(greet, "bob", cores=1, memory="100M", disk="10M")
    return job.addFollowOnJobFn(merge, a.rv(), b.rv(), cores=1, memory="100M", disk="10M").rv()


if __name__ == "__main__":
    options = Job.Runner.getDefaultOptions(sys.argv[1])
    options.batchSystem = "htcondor"
    options.clean = "always"
    options.logLevel = "INFO"
    options.disableCaching = True
    options.statePollingWait = 1
    with Toil(options) as workflow:
        out = workflow.start(Job.wrapJobFn(root, cores=1, memory="100M", disk="10M"))
    print("RESULT", out)
"""


def test_a_toil_workflow_runs_through_its_htcondor_batch_system(personal_pool, tmp_path):
    work = tmp_path / "toil"
    work.mkdir()
    (work / "workflow.py").write_text(WORKFLOW)
    env = bindings.client_env(personal_pool, tmp_path / "htcondor.config")
    env["TMPDIR"] = str(work)
    python = Path(bindings.LEGACY_PYTHON)
    env["PATH"] = f"{python.parent}{os.pathsep}{env['PATH']}"  # the jobs run _toil_worker
    r = subprocess.run(
        [str(python), "workflow.py", str(work / "jobstore")],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    assert "RESULT hello ada; hello bob" in r.stdout
    # Toil's own leader: each job issued to HTCondor, and each reported done.
    assert r.stderr.count("Issued job") == 4, r.stderr[-4000:]
    # ... and each ran as a job of the pool: done, exit 0, then removed by Toil.
    ran = personal_pool.cli("condorx.cli.history", "-af", "IsToilJob", "ExitCode").stdout
    assert ran.split("\n")[:-1] == ["true 0"] * 4
    assert not personal_pool.cli("condorx.cli.q", "-af", "ClusterId").stdout.strip()
