"""The scheduler universe (condor_dagman's): the schedd runs the job itself, on its own
machine, with no negotiator or startd in the pool; its exit and output are recorded as
any job's, and condor_rm signals it."""

from __future__ import annotations

from test_submit_query import _ads

from condorx.testing.pool import wait_for


def _submit(schedd, text: str) -> int:
    (schedd.root / "job.sub").write_text(text)
    out = schedd.cli("condor_submit", "job.sub").stdout
    return int(out.strip().split()[-1].rstrip("."))


def _history(schedd, c: int) -> list[str]:
    out = schedd.cli("condor_history", "-af", "ClusterId", "JobStatus", "ExitCode").stdout
    return [ln for ln in out.splitlines() if ln.startswith(f"{c} ")]


def test_a_scheduler_universe_job_runs_in_the_schedd_alone(schedd):
    c = _submit(
        schedd,
        "universe = scheduler\nexecutable = /bin/sh\n"
        "arguments = \"-c 'echo hello $0; echo oops >&2; exit 3' there\"\n"
        "output = out.txt\nerror = err.txt\nlog = job.log\nqueue\n",
    )
    wait_for(lambda: _history(schedd, c), "the job to finish")
    assert _history(schedd, c) == [f"{c} 4 3"]
    assert (schedd.root / "out.txt").read_text() == "hello there\n"
    assert (schedd.root / "err.txt").read_text() == "oops\n"
    log = (schedd.root / "job.log").read_text()
    assert "Job executing on host" in log and "Job terminated." in log


def test_condor_rm_signals_a_running_scheduler_job(schedd):
    c = _submit(
        schedd,
        "universe = scheduler\nexecutable = /bin/sh\n"
        "arguments = \"-c 'echo started > started.txt; exec sleep 300'\"\nqueue\n",
    )
    wait_for(lambda: (schedd.root / "started.txt").exists(), "the job to start")
    assert [ad["JobStatus"] for ad in _ads(schedd, f"ClusterId == {c}")] == [2]
    schedd.cli("condor_rm", str(c))
    wait_for(lambda: not _ads(schedd, f"ClusterId == {c}"), "the job to leave")
    assert _history(schedd, c) == [f"{c} 3 undefined"]


def test_a_job_that_cannot_start_is_held_saying_why(schedd):
    c = _submit(schedd, "universe = scheduler\nexecutable = /no/such/program\nqueue\n")
    wait_for(
        lambda: [ad.get("JobStatus") for ad in _ads(schedd, f"ClusterId == {c}")] == [5],
        "the job to be held",
    )
    (ad,) = _ads(schedd, f"ClusterId == {c}")
    assert ad["HoldReasonCode"] == 6 and "/no/such/program" in ad["HoldReason"]
