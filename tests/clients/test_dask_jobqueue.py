"""dask-jobqueue's HTCondorCluster, unchanged, on a condorx personal pool: it writes its
own submit description (`RequestCpus = MY.DaskWorkerCores`, `$F(MY.JobId)`, ...), runs
`condor_submit` on it and reads the cluster id from its answer, and stops its workers with
`condor_rm`."""

from __future__ import annotations

import os
import subprocess

from dask.distributed import Client
from dask_jobqueue import HTCondorCluster
from dask_jobqueue.htcondor import quote_environment

from condorx.testing.pool import wait_for

# Workers must come within 120 s even on a small, busy machine.
WORKERS_TIMEOUT = 120


def tool(pool, *argv: str) -> list[list[str]]:
    out = subprocess.run(argv, env=pool.env, capture_output=True, text=True, check=True).stdout
    return [ln.split() for ln in out.splitlines() if ln.strip()]


def run_cluster(logs, **options) -> HTCondorCluster:
    """Start an HTCondorCluster of two one-core workers, with their logs in `logs`."""
    cluster = HTCondorCluster(
        cores=1,
        memory="256MB",
        disk="100MB",
        log_directory=str(logs),
        scheduler_options={"host": "127.0.0.1", "dashboard_address": ":0"},
        **options,
    )
    cluster.scale(jobs=2)
    return cluster


def wait_for_two_workers(pool, client, logs) -> None:
    try:
        client.wait_for_workers(2, timeout=WORKERS_TIMEOUT)
    except TimeoutError:
        queue = tool(pool, "condor_q", "-af", "ClusterId", "JobStatus", "HoldReason")
        worker_logs = "\n".join(f"{p.name}:\n{p.read_text()}" for p in sorted(logs.iterdir()))
        raise AssertionError(f"no 2 workers; the queue: {queue}\n{worker_logs}") from None


def assert_removed(pool, job_ids: set[str]) -> None:
    """close() ran condor_rm on each worker's job: they leave the queue, as removed."""
    wait_for(lambda: tool(pool, "condor_q", "-af", "ClusterId") == [], "an empty queue", 60)
    history = tool(pool, "condor_history", "-af", "ClusterId", "ProcId", "JobStatus")
    assert sorted(history) == sorted([*job_id.split("."), "3"] for job_id in job_ids)


def test_htcondor_cluster_scales_computes_and_closes(personal_pool, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the jobs' Iwd
    logs = tmp_path / "dask-logs"
    cluster = run_cluster(logs)
    try:
        with Client(cluster) as client:
            wait_for_two_workers(personal_pool, client, logs)
            names = {job.job_id: name for name, job in cluster.workers.items()}
            job_ids = set(names)
            queue = tool(personal_pool, "condor_q", "-af", "ClusterId", "ProcId", "JobStatus")
            assert sorted(queue) == sorted([*job_id.split("."), "2"] for job_id in job_ids)
            assert client.submit(lambda x: x + 1, 10).result(timeout=60) == 11
            futures = client.map(lambda x: x * x, range(20))
            assert client.gather(futures) == [x * x for x in range(20)]
            assert len(client.scheduler_info()["workers"]) == 2
        # The job ad as HTCondor builds it from dask's description.
        for job_id, name in names.items():
            (ad,) = tool(
                personal_pool,
                "condor_q",
                job_id,
                "-af",
                "RequestCpus",
                "RequestMemory",
                "RequestDisk",
                "DaskWorkerName",
                "JobBatchName",
            )
            assert ad == ["1", "244", "97656", f"htcondor--{job_id}--", name]
    finally:
        cluster.close(timeout=60)
    assert_removed(personal_pool, job_ids)


def test_workers_get_the_environment_and_prologue_they_were_given(
    personal_pool, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONDORX_DASK_SUBMITTER", "from getenv")
    environment = {"GREETING": "hello 'dask' world", "SPACES": "a  b", "QUOTE": 'say "hi"'}
    logs = tmp_path / "dask-logs"
    cluster = run_cluster(
        logs,
        job_script_prologue=["export PROLOGUE='set by the prologue'", f"cd {tmp_path}"],
        job_extra_directives={
            "getenv": "True",
            "environment": f'"{quote_environment(environment)}"',
        },
    )
    try:
        with Client(cluster) as client:
            wait_for_two_workers(personal_pool, client, logs)
            job_ids = {job.job_id for job in cluster.workers.values()}
            names = [*environment, "CONDORX_DASK_SUBMITTER", "PROLOGUE"]
            seen = client.run(lambda: ({n: os.environ.get(n) for n in names}, os.getcwd()))
            assert len(seen) == 2
            for env, cwd in seen.values():
                assert env == {
                    **environment,
                    "CONDORX_DASK_SUBMITTER": "from getenv",
                    "PROLOGUE": "set by the prologue",
                }
                assert cwd == str(tmp_path)
    finally:
        cluster.close(timeout=60)
    assert_removed(personal_pool, job_ids)
