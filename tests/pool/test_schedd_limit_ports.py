"""The schedd's limits on a real pool, with HTCondor's words: its regression tests
max_jobs_per_owner_test.run and job_max_running.run (htcondor/htcondor, src/condor_tests)
with their knobs, every count asserted, and MAX_JOBS_SUBMITTED and
MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER beside them."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import htcondor2
import pytest

from condorx.testing.pool import LocalPool, wait_for
from condorx.transport import locate, security

pytestmark = pytest.mark.daemons  # starts its own daemons

QUICK = "NEGOTIATOR_INTERVAL = 1\nUPDATE_INTERVAL = 1\nSCHEDD_INTERVAL = 1\nSTART = TRUE\n"


@pytest.fixture
def make_pool() -> Iterator:
    pools: list[LocalPool] = []

    def make(config: str, *daemons: str) -> LocalPool:
        p = LocalPool(Path(tempfile.mkdtemp(prefix="limits")), QUICK + config)
        pools.append(p)
        p.start(*daemons)
        return p

    yield make
    for p in pools:
        p.stop()


def submit(pool: LocalPool, count: int, user: str | None = None, extra: str = "") -> str:
    """condor_submit of `count` held jobs (as `user`, by a token, else as the pool's
    account); what it printed on failure, else ""."""
    name = f"{user or 'me'}{count}.sub"
    (pool.root / name).write_text(
        f"executable = /bin/sleep\narguments = 600\n{extra}queue {count}\n"
    )
    env = dict(pool.env)
    if user is not None:
        key = Path(locate.pool_key_file(pool.cfg)).read_bytes().strip()
        env["CONDORX_TOKEN"] = security.make_token(key, user)
    r = pool.cli("condorx.cli.submit", name, "hold=true", check=False, env=env)
    return "" if r.returncode == 0 else r.stderr


def queued(pool: LocalPool) -> Counter[str]:
    out = pool.cli("condorx.cli.q", "-allusers", "-af", "Owner").stdout
    return Counter(out.split())


def test_max_jobs_per_owner_and_max_jobs_submitted_refuse_whole_submissions(make_pool):
    pool = make_pool("MAX_JOBS_PER_OWNER = 10\nMAX_JOBS_SUBMITTED = 15\n", "collector", "schedd")
    me = security.current_user()
    per_owner = "\nERROR: Failed to create proc\nNumber of submitted jobs would exceed"
    # max_jobs_per_owner_test: 12 jobs are refused, all of them; 8 are taken; 4 more
    # are refused, and the 8 stay.
    assert submit(pool, 12) == f"{per_owner} MAX_JOBS_PER_OWNER\n"
    assert queued(pool) == {}
    assert submit(pool, 8) == ""
    assert submit(pool, 4) == f"{per_owner} MAX_JOBS_PER_OWNER\n"
    assert queued(pool) == {me: 8}
    # Another owner has a quota of its own, but the queue holds 15 in all.
    assert submit(pool, 8, "alice") == f"{per_owner} MAX_JOBS_SUBMITTED\n"
    assert submit(pool, 7, "alice") == ""
    assert queued(pool) == {me: 8, "alice": 7}
    assert submit(pool, 1, "alice") == (
        "\nERROR: MAX_JOBS_SUBMITTED exceeded. Current=15, Limit=15\n"
        "Number of submitted jobs would exceed MAX_JOBS_SUBMITTED\n"
    )
    # HTCondor's own bindings are refused too, with the same reason.
    code = (
        "import htcondor2 as htcondor\n"
        "try:\n"
        "    htcondor.Schedd().submit(htcondor.Submit({'executable': '/bin/true'}))\n"
        "    result('taken')\n"
        "except Exception as e:\n"
        "    result(str(e))\n"
    )
    from condorx.testing import bindings

    out = bindings.run(pool, code)
    assert "MAX_JOBS_SUBMITTED exceeded. Current=15, Limit=15" in out.value, out.stderr
    assert queued(pool) == {me: 8, "alice": 7}


def most_at_once(log: Path) -> int:
    now = most = 0
    for event in htcondor2.JobEventLog(str(log)).events(stop_after=0):
        if event.type == htcondor2.JobEventType.EXECUTE:
            now += 1
            most = max(most, now)
        elif event.type in (
            htcondor2.JobEventType.JOB_TERMINATED,
            htcondor2.JobEventType.JOB_EVICTED,
            htcondor2.JobEventType.JOB_ABORTED,
        ):
            now -= 1
    return most


def test_max_jobs_running_and_scheduler_jobs_per_owner(make_pool):
    pool = make_pool(
        "NUM_CPUS = 12\nMAX_JOBS_RUNNING = 8\nMAX_RUNNING_SCHEDULER_JOBS_PER_OWNER = 2\n",
        "collector",
        "schedd",
        "startd",
        "negotiator",
    )
    (pool.root / "jobs.sub").write_text(
        "executable = /bin/sleep\narguments = 600\nlog = jobs.log\nqueue 20\n"
    )
    vanilla = pool.submit((pool.root / "jobs.sub").read_text(), name="jobs.sub")
    local = pool.submit(
        "universe = scheduler\nexecutable = /bin/sleep\narguments = 600\nqueue 4\n",
        name="local.sub",
    )

    def running() -> dict[int, int]:
        out = pool.cli("condorx.cli.q", "-af", "ClusterId", "-constraint", "JobStatus == 2")
        return dict(Counter(int(c) for c in out.stdout.split()))

    # job_max_running: twelve slots, but eight jobs at most; two of the scheduler's.
    wait_for(lambda: running() == {vanilla: 8, local: 2}, "8 and 2 jobs running", 120)
    assert most_at_once(pool.root / "jobs.log") == 8
    # One of each goes: the next of each takes its place, and no more.
    for cluster in (vanilla, local):
        ids = pool.cli(
            "condorx.cli.q",
            "-af",
            "ProcId",
            "-constraint",
            f"JobStatus == 2 && ClusterId == {cluster}",
        ).stdout.split()
        pool.cli("condorx.cli.act:rm", f"{cluster}.{ids[0]}")

    def replaced() -> bool:
        left = pool.cli("condorx.cli.q", "-af", "ClusterId").stdout.split()
        return Counter(left) == {str(vanilla): 19, str(local): 3} and running() == {
            vanilla: 8,
            local: 2,
        }

    wait_for(replaced, "the next of each to start in the freed place", 60)
    assert most_at_once(pool.root / "jobs.log") == 8
    # The slots still free are offered no job: the schedd tells the negotiator none.
    free = pool.cli("condorx.cli.status", "-af", "State").stdout.split()
    assert Counter(free) == {"Claimed": 8, "Unclaimed": 4}


def test_one_transactions_clusters_are_counted_together(make_pool):
    """HTCondor's NewProc counts the jobs its transaction added already
    (jobs_added_this_transaction): two clusters of 6 in one transaction of the legacy
    bindings break MAX_JOBS_PER_OWNER = 10 together, and neither is queued; two of 5 fit,
    and MAX_JOBS_PER_SUBMISSION = 12 then holds back a transaction of 7 and 6."""
    from condorx.testing import bindings

    pool = make_pool(
        "MAX_JOBS_PER_OWNER = 10\nMAX_JOBS_PER_SUBMISSION = 12\n", "collector", "schedd"
    )
    code = (
        "import htcondor\n"
        "import sys\n"
        "sub = htcondor.Submit({'executable': '/bin/true'})\n"
        "said = []\n"
        "for counts in COUNTS:\n"
        "    try:\n"
        "        schedd = htcondor.Schedd()\n"
        "        with schedd.transaction() as txn:\n"
        "            for n in counts:\n"
        "                sub.queue(txn, n)\n"
        "        said.append('taken')\n"
        "    except Exception as e:\n"
        "        said.append(str(e))\n"
        "result(said)\n"
    )
    me = security.current_user()
    out = bindings.run(pool, code.replace("COUNTS", "[[6, 6]]"), python=bindings.LEGACY_PYTHON)
    assert out.returncode == 0, out.stderr
    [said] = out.value
    assert "would exceed MAX_JOBS_PER_OWNER" in said and queued(pool) == {}
    out = bindings.run(pool, code.replace("COUNTS", "[[5, 5]]"), python=bindings.LEGACY_PYTHON)
    assert out.value == ["taken"] and queued(pool) == {me: 10}
    with open(pool.config_file, "a") as f:
        f.write("MAX_JOBS_PER_OWNER = 100\n")
    pool.stop()
    pool.reload()
    pool.start("collector", "schedd")
    out = bindings.run(
        pool, code.replace("COUNTS", "[[7, 6], [7, 5]]"), python=bindings.LEGACY_PYTHON
    )
    assert "would exceed MAX_JOBS_PER_SUBMISSION" in out.value[0] and out.value[1] == "taken"
    assert queued(pool) == {me: 22}
