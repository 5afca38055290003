"""The startd's three ways of stopping (manual 3.5.8.4), on real processes: graceful
(SIGTERM: claims retire, then jobs are vacated), fast (SIGQUIT: jobs killed at once, no
retirement) and peaceful (SIGUSR1: jobs finish however long it takes). In each the startd
takes no new work and exits once its claims are gone; condor_off passes the same modes."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from condorx.testing.pool import QUICK_POOL, wait_for, wait_for_pid
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.pool_views import history, queue, transitions


def start(pool: Pool, extra: str = "") -> None:
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL + "POLLING_INTERVAL = 1\nNUM_CPUS = 1\nRunBenchmarks = false\n" + extra)
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")


def running_job(pool: Pool, seconds: int, trap: str = "") -> tuple[int, int]:
    pidfile = pool.root / "pid"
    c = pool.submit(
        f"""
executable = /bin/sh
arguments = "-c 'echo $$ > {pidfile}; {trap} sleep {seconds}'"
log = job.log
queue
""",
    )
    return c, wait_for_pid(pidfile)


def stop_startd(pool: Pool, sig: int) -> float:
    """Signal the startd; returns how long it took to exit."""
    proc = pool.daemon("startd").proc
    assert proc is not None
    t0 = time.monotonic()
    proc.send_signal(sig)
    proc.wait(60)
    return time.monotonic() - t0


def test_graceful_shutdown_lets_the_job_retire_then_exits(pool):
    start(pool, "MaxJobRetirementTime = 60\n")
    c, _ = running_job(pool, 3)
    took = stop_startd(pool, signal.SIGTERM)
    assert took < 30
    assert history(pool, "ClusterId", "JobStatus") == [[str(c), "4"]]  # it finished
    seen = transitions(pool)
    assert seen[seen.index(13) :][:3] == [13, 18, 22]
    assert "the startd is shutting down" in (pool.root / "log" / "StartLog").read_text()


def test_graceful_shutdown_without_retirement_vacates_the_job(pool):
    start(pool)
    c, pid = running_job(pool, 600)
    stop_startd(pool, signal.SIGTERM)
    assert not Path(f"/proc/{pid}").exists()
    wait_for(lambda: queue(pool, "JobStatus") == [["1"]], "the job to be back in the queue")
    log = pool.root / "job.log"
    wait_for(lambda: "Job was evicted" in log.read_text(), "the eviction in the user log")
    seen = transitions(pool)
    assert seen[seen.index(13) :][:3] == [13, 18, 22]


def test_fast_shutdown_kills_at_once(pool):
    start(pool, "MaxJobRetirementTime = 600\n")
    c, pid = running_job(pool, 600, trap="trap : TERM;")
    took = stop_startd(pool, signal.SIGQUIT)
    assert took < 10 and not Path(f"/proc/{pid}").exists()
    seen = transitions(pool)
    assert seen[seen.index(13) :][:3] == [13, 18, 25]  # straight to Killing


def test_peaceful_shutdown_waits_for_the_job(pool):
    start(pool, "MaxJobRetirementTime = 0\n")
    c, _ = running_job(pool, 4)
    took = stop_startd(pool, signal.SIGUSR1)
    assert took >= 2  # it waited for the job, which had no retirement time to speak of
    assert history(pool, "ClusterId", "JobStatus") == [[str(c), "4"]]
    assert "Job was evicted" not in (pool.root / "job.log").read_text()
