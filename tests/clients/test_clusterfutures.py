"""clusterfutures (cfut), unchanged, on a condorx personal pool: its CondorExecutor pipes a
submit description to `condor_submit -v` and reads the cluster id from the `** Proc C.0:`
line that a description on standard input prints; its `condor.getoutput` waits for a job
with `condor_wait LOG JOB` before reading the job's output files."""

from __future__ import annotations

import os

import pytest
from cfut import CondorExecutor, condor


@pytest.fixture
def cfut_dir(personal_pool, tmp_path, monkeypatch):
    """cfut keeps its files in CFUT_DIR, relative to the working directory: the jobs, which
    run where they were submitted (a shared file system), find them there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path / ".cfut"


def test_the_condor_executor_runs_python_functions_as_jobs(personal_pool, cfut_dir):
    def square(x: int) -> int:  # local: cloudpickle sends it whole, not by module name
        return x * x

    executor = CondorExecutor()
    try:
        futures = [executor.submit(square, n) for n in (3, 4)]
        assert [f.result(timeout=120) for f in futures] == [9, 16]
    finally:
        executor.shutdown(wait=False)


def test_condor_wait_ends_cfuts_wait_for_a_job(personal_pool, cfut_dir):
    os.makedirs(cfut_dir, exist_ok=True)
    jobid, script = condor.submit_script("#!/bin/sh\necho hey there\n")
    stdout, stderr = condor.getoutput(jobid)  # returns once condor_wait has
    assert (stdout, stderr) == ("hey there\n", "")
    assert "Job terminated." in (cfut_dir / "condorpy.log").read_text()
    os.unlink(script)
