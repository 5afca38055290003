"""Several condor_submit at the same moment (as dask-jobqueue does): each asks for a
cycle, the cycles come one on another while the startd's ads still show slots that were
just matched, and a startd's refusal of such a slot must cost a log line, never the
negotiator."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from condorx.testing.pool import QUICK_POOL as POOL
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.pool import wait_for

# Eight at once, more than the slots: with the negotiator of before the fix, one of
# their cycles met a refusal (and the negotiator died) in every run we tried.
SUBMITTERS = 8
JOBS_EACH = 2


@pytest.fixture
def four_slots(pool: Pool) -> Pool:
    """A quick pool of four slots, so that one cycle makes several matches."""
    with open(pool.config_file, "a") as f:
        f.write(POOL + "NUM_CPUS = 4\n")
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    return pool


def finished(pool: Pool) -> list[str]:
    out = pool.cli("condorx.cli.history", "-af", "ClusterId", "ProcId", "JobStatus").stdout
    return sorted(out.splitlines())


def test_concurrent_submissions_all_run_and_the_negotiator_survives(four_slots):
    pool = four_slots
    negotiator = pool.daemon("negotiator")
    assert negotiator.proc is not None
    pid, address = negotiator.proc.pid, negotiator.address()
    for i in range(SUBMITTERS):
        (pool.root / f"job{i}.sub").write_text(
            f"executable = /bin/true\nlog = job{i}.log\nqueue {JOBS_EACH}\n"
        )

    def submit(i: int) -> int:
        out = pool.cli("condorx.cli.submit", f"job{i}.sub").stdout
        return int(out.strip().split()[-1].rstrip("."))

    with ThreadPoolExecutor(SUBMITTERS) as ex:
        clusters = list(ex.map(submit, range(SUBMITTERS)))

    want = sorted(f"{c} {p} 4" for c in clusters for p in range(JOBS_EACH))
    wait_for(lambda: finished(pool) == want, "every job to complete", timeout=180)
    # Without a master nothing restarts it: the same process is alive and still answers.
    assert negotiator.proc.poll() is None and negotiator.proc.pid == pid
    assert negotiator.address() == address
    assert pool.call_daemon("negotiator", {"cmd": "reschedule"})["ok"]
    assert "Traceback" not in negotiator.log.read_text()
