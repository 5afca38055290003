"""Parsl's HTCondorProvider, unchanged, on a condorx personal pool: it writes its own
submit description (`machine_count`, an empty `requirements` and `+projectname`,
`leave_in_queue = TRUE`, a quoted `environment`), runs `condor_submit` and reads the
cluster id from its answer, polls `condor_q <ids> -af:jr JobStatus`, and at cleanup
cancels its block with `condor_rm <id>; condor_rm -forcex <id>`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import parsl
from parsl.config import Config
from parsl.executors import HighThroughputExecutor
from parsl.providers import CondorProvider

from condorx.testing.pool import wait_for

BIN = Path(sys.executable).parent  # process_worker_pool.py is installed beside python
HERE = Path(__file__).resolve().parent

# The worker pool must connect and run the apps within 120 s even on a busy machine.
RESULT_TIMEOUT = 120


@parsl.python_app
def add(a: int, b: int) -> int:
    return a + b


def tool(pool, *argv: str) -> list[list[str]]:
    out = subprocess.run(argv, env=pool.env, capture_output=True, text=True, check=True).stdout
    return [ln.split() for ln in out.splitlines() if ln.strip()]


def parsl_config(run_dir: Path) -> Config:
    provider = CondorProvider(
        nodes_per_block=1,
        init_blocks=1,
        min_blocks=0,
        max_blocks=1,
        # The worker finds process_worker_pool.py, and this module (dill sends the app
        # by reference to it), as on a shared file system.
        worker_init=f"export PATH={BIN}:$PATH PYTHONPATH={HERE}",
        cmd_timeout=60,
    )
    executor = HighThroughputExecutor(
        label="condorx_htex",
        address="127.0.0.1",
        loopback_address="127.0.0.1",
        worker_debug=False,
        max_workers_per_node=2,
        cores_per_worker=1,
        provider=provider,
    )
    # The initial block is submitted at the first strategy pass: after 1 s, not parsl's 5.
    return Config(executors=[executor], run_dir=str(run_dir), strategy="none", strategy_period=1)


def test_condor_provider_runs_apps_and_cancels_its_block(personal_pool, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dfk = parsl.load(parsl_config(tmp_path / "runinfo"))
    try:
        futures = [add(2, 3), add(40, 2)]
        try:
            results = [f.result(timeout=RESULT_TIMEOUT) for f in futures]
        except TimeoutError:
            queue = tool(personal_pool, "condor_q", "-af", "ClusterId", "JobStatus", "HoldReason")
            scripts = sorted((tmp_path / "runinfo").rglob("*.std*"))
            logs = "\n".join(f"{p.name}:\n{p.read_text()}" for p in scripts)
            raise AssertionError(f"no results; the queue: {queue}\n{logs}") from None
        assert results == [5, 42]
        # Its machine_count is MinHosts/MaxHosts in the vanilla universe, as in HTCondor.
        attrs = ("JobStatus", "MinHosts", "MaxHosts", "LeaveJobInQueue", "ProjectName")
        (job,) = tool(personal_pool, "condor_q", "-af:jr", *attrs)
        assert job[1:] == ["2", "1", "1", "true", "undefined"]
        job_id = job[0]
    finally:
        dfk.cleanup()
        parsl.clear()
    # condor_rm put it in X (LeaveJobInQueue keeps it there), condor_rm -forcex let it go.
    wait_for(
        lambda: tool(personal_pool, "condor_q", "-af", "ClusterId") == [], "an empty queue", 60
    )
    history = tool(personal_pool, "condor_history", "-af:j", "JobStatus")
    assert history == [[job_id, "3"]]
