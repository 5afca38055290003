"""pycondor's Dagman, unchanged, on a condorx personal pool: it writes each Job's submit
file (arguments as `$(ARGS)`, one node per argument) and the DAG (JOB, VARS ARGS=...,
RETRY, PARENT ... CHILD), runs `condor_submit_dag` on it, and the DAG runs."""

from __future__ import annotations

from pycondor import Dagman, Job

from condorx.testing import personal
from condorx.testing.pool import wait_for

history = personal.history


def test_a_pycondor_dagman_runs_its_jobs_in_order(personal_pool, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.txt"
    step = tmp_path / "step.sh"
    step.write_text(f"#!/bin/sh\necho $1 >> {out}\n")
    step.chmod(0o755)
    dagman = Dagman("pipeline", submit=str(tmp_path / "submit"))
    first = Job(
        "first",
        str(step),
        submit=str(tmp_path / "submit"),
        log=str(tmp_path / "log"),
        output=str(tmp_path / "output"),
        error=str(tmp_path / "error"),
        dag=dagman,
        retry=1,
    )
    first.add_arg("first-one", name="one")
    first.add_arg("first-two", name="two")
    second = Job("second", str(step), submit=str(tmp_path / "submit"), dag=dagman)
    second.add_arg("second")
    second.add_parent(first)
    dagman.build_submit()
    text = open(dagman.submit_file).read()
    # Names get the date (fancyname); the keywords are in mixed case.
    assert "\nRetry first_" in text and "\nParent first_" in text
    wait_for(lambda: history(personal_pool, "JobUniverse == 7", "ExitCode"), "the DAG to end", 90)
    assert history(personal_pool, "JobUniverse == 7", "ExitCode", "DAG_NodesDone") == [["0", "3"]]
    lines = out.read_text().split()
    assert sorted(lines[:2]) == ["first-one", "first-two"] and lines[2:] == ["second"]
