"""Job hooks (manual 4.4) on real daemons: the startd fetches work from the SQLite work
queue shipped in examples/hooks (its hooks are real programs), the starter runs the
job's hooks, and what each hook saw is read back from the queue's own records. How
FetchWorkDelay spaces the fetches is tested at exact times in-process
(tests/startd/test_policy_timing.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from condorx.testing.pool import QUICK_POOL, wait_for, wait_for_pid
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.procs import job_stopped

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hooks"
BASE = QUICK_POOL + "POLLING_INTERVAL = 1\nNUM_CPUS = 1\nRunBenchmarks = false\n"


class WorkQueue:
    """The example's work queue in the pool's directory, driven as its users would."""

    def __init__(self, pool: Pool) -> None:
        self.dir = pool.root / "hooks"
        shutil.copytree(EXAMPLE, self.dir, ignore=shutil.ignore_patterns("*.db*", "__pycache__"))
        self.env = {**os.environ, "WORKQ_DB": str(self.dir / "work.db")}
        self.run("status")  # the empty queue, made as its admin would

    def run(self, *args: str) -> str:
        out = subprocess.run(
            [sys.executable, str(self.dir / "workq.py"), *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout

    def add(self, *cmd: str, **opts: str) -> int:
        flags = [x for k, v in opts.items() for x in (f"--{k}", v)]
        return int(self.run("add", *flags, *cmd))

    def status(self) -> dict[int, list[str]]:
        """id -> [state, slot, exit_how, exit_code, updates, fetches, rejects, evictions]"""
        rows = [ln.split() for ln in self.run("status").splitlines()]
        return {int(r[0]): r[1:] for r in rows}

    def events(self, unit: int | None = None) -> list[str]:
        lines = self.run("events", *([str(unit)] if unit else [])).splitlines()
        return [ln.split(" ", 1)[1] for ln in lines]

    def hooks(self, unit: int) -> list[str]:
        return [e.split()[0] for e in self.events(unit)]

    def advised(self, unit: int) -> tuple[list[str], str]:
        """The unit's hooks but REPLY_FETCH, and what REPLY_FETCH heard. The startd does
        not wait for REPLY_FETCH (manual 4.4), so where it falls among the others is its
        own; it is awaited here, and then must have come after FETCH_WORK."""
        wait_for(lambda: "reply_fetch" in self.hooks(unit), "the REPLY_FETCH hook to run")
        events = self.events(unit)
        replies = [e for e in events if e.startswith("reply_fetch")]
        others = [e.split()[0] for e in events if not e.startswith("reply_fetch")]
        assert len(replies) == 1 and events.index(replies[0]) > others.index("fetch_work")
        return others, replies[0]


def start(pool: Pool, config: str = "") -> WorkQueue:
    q = WorkQueue(pool)
    hooks = (EXAMPLE / "hooks.config").read_text()
    with open(pool.config_file, "a") as f:
        f.write(BASE + f"WORKQ_DIR = {q.dir}\n" + hooks + config)
    pool.reload()
    return q


def transitions(pool: Pool) -> list[int]:
    log = (pool.root / "log" / "StartLog").read_text()
    return [int(n) for n in re.findall(r"\(transition (\d+):", log)]


def test_fetched_jobs_run_on_one_claim_then_the_slot_returns_to_owner(pool):
    q = start(pool)
    out = pool.root / "out"
    a = q.add("/bin/sh", "-c", "'echo one >> out'", iwd=str(pool.root))
    b = q.add("/bin/sh", "-c", "'echo two >> out; exit 3'", iwd=str(pool.root))
    pool.start("collector", "startd")
    wait_for(lambda: q.status()[b][0] == "done", "both units to be done")
    assert out.read_text() == "one\ntwo\n"
    assert q.status()[a][0] == "done" and q.status()[a][2:4] == ["exit", "0"]
    assert q.status()[b][2:4] == ["exit", "3"]
    others, reply = q.advised(a)
    assert others == ["fetch_work", "prepare_job", "job_exit"]
    assert "accept" in reply
    # One claim ran both (5, 11, 12, 11, 12); with no more work it was evicted (10, 22).
    wait_for(lambda: transitions(pool)[-3:] == [10, 22, 1], "the claim to be evicted")
    seen = transitions(pool)
    assert seen[seen.index(5) :] == [5, 11, 12, 11, 12, 10, 22, 1]


def script(pool: Pool, name: str, body: str) -> Path:
    """A hook of the test's own: a shell script (its body sees the hook's stdin)."""
    path = pool.root / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


SEED_EXAMPLE = """
  # Most slots fetch and run work from the database system.
  STARTD_JOB_HOOK_KEYWORD = DATABASE

  # Slot4 fetches and runs work from a web service.
  SLOT4_JOB_HOOK_KEYWORD = WEB

  # The database system needs to both provide work and know the reply
  # for each attempted claim.
  DATABASE_HOOK_DIR = /usr/local/condor/fetch/database
  DATABASE_HOOK_FETCH_WORK = $(DATABASE_HOOK_DIR)/fetch_work.php
  DATABASE_HOOK_REPLY_FETCH = $(DATABASE_HOOK_DIR)/reply_fetch.php

  # The web system only needs to fetch work.
  WEB_HOOK_DIR = /usr/local/condor/fetch/web
  WEB_HOOK_FETCH_WORK = $(WEB_HOOK_DIR)/fetch_work.php
"""


def test_the_seeds_database_and_web_keywords(pool):
    # The seed's configuration as written; only where its hooks live is ours, and the
    # hooks (named .php as there) are the workq example's, one queue for each system.
    queues = {}
    for system in ("database", "web"):
        d = pool.root / system
        shutil.copytree(EXAMPLE, d, ignore=shutil.ignore_patterns("*.db*", "__pycache__"))
        for hook in ("fetch_work", "reply_fetch"):
            (d / hook).rename(d / f"{hook}.php")
        queues[system] = d
    audit = pool.root / "audit"
    exit_hook = script(pool, "audit_exit", f'grep -i "^HookKeyword" >> {audit}')
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL + "NUM_CPUS = 4\nRunBenchmarks = false\n" + SEED_EXAMPLE)
        f.write(f"DATABASE_HOOK_DIR = {queues['database']}\nWEB_HOOK_DIR = {queues['web']}\n")
        f.write("FetchWorkDelay = 1\n")
        # The starter's own keyword, forced for every job: it sees each job's HookKeyword.
        f.write(f"STARTER_JOB_HOOK_KEYWORD = AUDIT\nAUDIT_HOOK_JOB_EXIT = {exit_hook}\n")
    pool.reload()

    def workq(system: str, *args: str) -> str:
        exe = [sys.executable, str(queues[system] / "workq.py"), *args]
        return subprocess.run(exe, capture_output=True, text=True, check=True).stdout

    for _ in range(3):
        workq("database", "add", "--iwd", str(pool.root), "/bin/sleep", "1")
    workq("web", "add", "--iwd", str(pool.root), "/bin/sleep", "1")
    pool.start("collector", "startd")

    def rows(system: str) -> list[list[str]]:
        return [ln.split() for ln in workq(system, "status").splitlines()]

    wait_for(lambda: audit.exists() and len(audit.read_text().splitlines()) == 4, "4 exits")
    # Accepted (the database heard so); only the audit set has a JOB_EXIT hook.
    assert [r[1] for r in rows("database")] == ["running"] * 3
    assert {r[2].split("@")[0] for r in rows("web")} == {"slot4"}
    assert "slot4" not in {r[2].split("@")[0] for r in rows("database")}
    # The database's units were answered (REPLY_FETCH); the web has no such hook.
    assert "reply_fetch accept" in " ".join(workq("database", "events").splitlines())
    assert "reply_fetch" not in workq("web", "events")
    seen = sorted(ln.split("=")[1].strip() for ln in audit.read_text().splitlines())
    assert seen == ['"DATABASE"'] * 3 + ['"WEB"']


def test_fetched_work_the_slot_ranks_higher_preempts_fetched_work(pool):
    q = start(pool, "RANK = TARGET.Important =?= True\nFetchWorkDelay = 1\n")
    pool.start("collector", "startd")
    # Its process must be there before it is preempted (the slot is Busy before that):
    # a job stopped before it starts has no exit for JOB_EXIT to hear of.
    pids = pool.root / "pid"
    long = q.add("/bin/sh", "-c", f"'echo $$ > {pids}; exec sleep 60'", iwd=str(pool.root))
    wait_for(lambda: q.status()[long][0] == "running", "the long unit to run")
    wait_for_pid(pids, "the long unit's job to start")
    urgent = q.add("/bin/true", iwd=str(pool.root), attr="Important = true")
    wait_for(lambda: q.status()[urgent][0] == "done", "the unit the slot ranks higher")
    # The long unit was evicted: its JOB_EXIT said so, EVICT_CLAIM put it back in the queue.
    events = q.events(long)
    assert any(e.startswith("job_exit evict") for e in events)
    wait_for(  # advisory: the startd does not wait for it
        lambda: any(e.startswith("evict_claim") for e in q.events(long)),
        "the EVICT_CLAIM hook to hear of the eviction",
    )
    assert q.status()[long][7] == "1"  # one eviction
    seen = transitions(pool)
    assert seen[seen.index(13) :][:4] == [13, 18, 23, 11]
    # It is fetched again and runs once the slot is free of the urgent unit.
    wait_for(lambda: q.status()[long][0] == "running", "the evicted unit to run again")


def test_a_schedd_job_the_slot_ranks_higher_preempts_fetched_work(pool):
    q = start(pool, "RANK = TARGET.Important =?= True\nMaxJobRetirementTime = 0\n")
    long = q.add("/bin/sleep", "60", iwd=str(pool.root))  # there for the first fetch
    pool.start("collector", "negotiator", "startd", "schedd")
    wait_for(lambda: q.status()[long][0] == "running", "the fetched unit to run")
    marker = pool.root / "schedd-job-ran"
    (pool.root / "job.sub").write_text(
        f"executable = /bin/sh\narguments = \"-c 'touch {marker}'\"\n+Important = True\nqueue\n"
    )
    pool.cli("condorx.cli.submit", "job.sub")
    wait_for(lambda: marker.exists(), "the schedd's job to run in the fetched one's place")
    # EVICT_CLAIM is advisory: the startd does not wait for it, so it may still be running.
    wait_for(
        lambda: any(e.startswith("evict_claim") for e in q.events(long)),
        "the EVICT_CLAIM hook to hear of the eviction",
    )
    log = (pool.root / "log" / "StartLog").read_text()
    assert "preempting match (rank)" in log


def queue(pool: Pool, *attrs: str) -> list[str]:
    return pool.cli("condorx.cli.q", "-af", *attrs).stdout.split()


def test_a_failing_prepare_job_hook_holds_a_schedd_job_with_code_19(pool):
    bad = script(pool, "prepare", "cat > /dev/null; echo 'no scratch space' >&2; exit 7")
    with open(pool.config_file, "a") as f:
        f.write(BASE + f"STARTER_JOB_HOOK_KEYWORD = SITE\nSITE_HOOK_PREPARE_JOB = {bad}\n")
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    marker = pool.root / "ran"
    pool.submit(f"executable = /bin/touch\narguments = {marker}\nqueue\n")
    wait_for(lambda: queue(pool, "JobStatus") == ["5"], "the job to be held")
    code, sub = queue(pool, "HoldReasonCode", "HoldReasonSubCode")
    assert (code, sub) == ("19", "7")
    reason = pool.cli("condorx.cli.q", "-af", "HoldReason").stdout
    assert "SITE_HOOK_PREPARE_JOB" in reason and "status 7" in reason
    assert not marker.exists()  # the job never ran


def test_a_fetched_job_whose_prepare_fails_never_runs(pool):
    q = start(pool)
    unit = q.add("/no/such/program", iwd=str(pool.root))  # there for the first fetch
    pool.start("collector", "startd")
    wait_for(lambda: q.status()[unit][2] == "failed", "the unit to fail its preparation")
    # No job, no exit. The claim, left with no work, is then evicted (EVICT_CLAIM), at a
    # moment of its own.
    others, reply = q.advised(unit)
    assert [h for h in others if h != "evict_claim"] == ["fetch_work", "prepare_job"]
    assert "accept" in reply
    log = pool.root / "log" / "StartLog"
    wait_for(lambda: "WORKQ_HOOK_PREPARE_JOB failed" in log.read_text(), "the StartLog line")


def test_update_job_info_reports_the_running_process_tree(pool):
    q = start(pool, "STARTER_INITIAL_UPDATE_INTERVAL = 1\nSTARTER_UPDATE_INTERVAL = 1\n")
    unit = q.add("/bin/sh", "-c", "'sleep 4 & sleep 4; wait'", iwd=str(pool.root))
    pool.start("collector", "startd")  # (the unit is there for its first fetch)
    wait_for(lambda: q.status()[unit][0] == "done", "the unit to finish", timeout=60)
    updates = [e for e in q.events(unit) if e.startswith("update_job_info")]
    assert len(updates) >= 2
    first = dict(kv.split("=", 1) for kv in updates[0].split()[1:])
    assert first["jobstate"] == "Running" and int(first["numpids"]) >= 3  # sh and 2 sleeps
    assert int(first["jobpid"]) > 0 and int(first["imagesize"]) > 0
    assert int(first["jobstartdate"]) > 1_700_000_000
    exit_line = [e for e in q.events(unit) if e.startswith("job_exit")][0]
    assert exit_line == "job_exit exit [WORKQ] The job exited normally with status 0"


def test_job_exit_hears_hold_and_remove(pool):
    q = start(pool, "STARTER_JOB_HOOK_KEYWORD = WORKQ\n")
    pool.start("collector", "negotiator", "startd", "schedd")
    # Running means its process is there (the queue says Running once the run is
    # handed to the startd): a job stopped before it starts has no exit to hear of.
    runs = pool.root / "runs"
    c = pool.submit(
        f"executable = /bin/sh\narguments = \"-c 'echo $$ >> {runs}; exec sleep 60'\"\nqueue\n",
    )
    wait_for(lambda: runs.exists(), "the job to run")
    pool.cli("condorx.cli.act:hold", str(c))
    wait_for(lambda: any(e.startswith("job_exit hold") for e in q.events()), "JOB_EXIT hold")
    pool.cli("condorx.cli.act:release", str(c))
    wait_for(lambda: len(runs.read_text().split()) == 2, "the job to run again")
    pool.cli("condorx.cli.act:rm", str(c))
    wait_for(lambda: any(e.startswith("job_exit remove") for e in q.events()), "JOB_EXIT remove")
    # A schedd's job has no unit in the queue: its hooks still ran, for the record.
    assert all(e.startswith("-") for e in q.run("events").splitlines() if "job_exit" in e)


BROKEN_FETCHES = {
    "hangs": ("sleep 6017; echo never", "timed out after 2 s (killed)"),
    "crashes": ("kill -SEGV $$", "killed by signal 11"),
    "prints garbage": ("echo '[[[ not = = an ad'", "printed a job ad that is refused"),
    "is missing": (None, "cannot run"),
}


@pytest.mark.parametrize("case", list(BROKEN_FETCHES))
def test_a_broken_fetch_work_hook_costs_a_log_line_not_the_slot(pool, case):
    body, logged = BROKEN_FETCHES[case]
    fetch = script(pool, "fetch", "cat > /dev/null; " + body) if body else "/no/such/hook"
    replies = pool.root / "replies"
    reply = script(pool, "reply", f'echo "$1" >> {replies}')
    with open(pool.config_file, "a") as f:
        f.write(BASE + "STARTD_JOB_HOOK_KEYWORD = BAD\nFetchWorkDelay = 1\n")
        f.write(f"BAD_HOOK_FETCH_WORK = {fetch}\nBAD_HOOK_FETCH_WORK_TIMEOUT = 2\n")
        f.write(f"BAD_HOOK_REPLY_FETCH = {reply}\n")
    pool.reload()
    pool.start("collector", "startd")
    log = pool.root / "log" / "StartLog"
    wait_for(lambda: log.read_text().count(logged) >= 2, "two failures, logged", timeout=20)
    assert "BAD_HOOK_FETCH_WORK" in log.read_text()  # named, with its keyword
    # The slot carries on, Unclaimed, and the startd answers.
    out = pool.cli("condorx.cli.status", "-af", "State").stdout.split()
    assert out == ["Unclaimed"]
    if case == "prints garbage":
        wait_for(lambda: replies.exists(), "REPLY_FETCH")
        assert set(replies.read_text().split()) == {"reject"}
    if case == "hangs":  # the hook's own children were killed with it
        ps = subprocess.run(["pgrep", "-f", "sleep 6017"], capture_output=True, text=True)
        assert len(ps.stdout.split()) <= 1  # at most the one running now


def test_a_hanging_job_exit_hook_is_cut_off_and_the_job_still_reported(pool):
    slow = script(pool, "slow", "sleep 6018")
    with open(pool.config_file, "a") as f:
        f.write(BASE + "STARTER_JOB_HOOK_KEYWORD = SLOW\n")
        f.write(f"SLOW_HOOK_JOB_EXIT = {slow}\nSLOW_HOOK_JOB_EXIT_TIMEOUT = 2\n")
        f.write(f"SLOW_HOOK_UPDATE_JOB_INFO = {slow}\nSTARTER_INITIAL_UPDATE_INTERVAL = 0\n")
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    c = pool.submit("executable = /bin/sleep\narguments = 1\nqueue\n")
    hist = lambda: pool.cli("condorx.cli.history", "-af", "ClusterId", "ExitCode").stdout.split()  # noqa: E731
    wait_for(lambda: hist() == [str(c), "0"], "the job to complete", timeout=40)
    log = (pool.root / "log" / "StarterLog").read_text()
    assert "SLOW_HOOK_JOB_EXIT: timed out after 2 s (killed)" in log


def test_nothing_in_a_fetched_ad_reaches_a_shell(pool):
    q = start(pool)
    pwned = pool.root / "pwned"
    unit = q.add(
        "/bin/echo",
        f"'$(touch {pwned})'",
        f"'`touch {pwned}`;touch {pwned}'",
        iwd=str(pool.root),
        out="echoed",
        attr=f'Note = "; touch {pwned}; $(touch {pwned})"',
    )
    pool.start("collector", "startd")  # (the unit is there for its first fetch)
    wait_for(lambda: q.status()[unit][0] == "done", "the unit to run")
    assert not pwned.exists()
    assert (pool.root / "echoed").read_text() == f"$(touch {pwned}) `touch {pwned}`;touch {pwned}\n"


def test_fetched_work_obeys_the_slots_policy(pool):
    # The desktop policy: suspended while the keyboard is in use, continued when it has
    # been idle two minutes, preempted while suspended once the owner is busy at it (here
    # the keyboard says when, not seconds suspended: UPDATE_JOB_INFO must report the
    # suspension first; the timed PREEMPT is tested in tests/startd/test_policy_timing.py).
    inputs = pool.root / "inputs"
    inputs.write_text("KeyboardIdle = 3600\n")
    q = start(
        pool,
        f"""
STARTD_INPUTS_OVERRIDE = {inputs}
START = KeyboardIdle > 60
WANT_SUSPEND = True
SUSPEND = KeyboardIdle < 60
CONTINUE = KeyboardIdle > 120
PREEMPT = (Activity == "Suspended") && (KeyboardIdle < 10)
STARTER_INITIAL_UPDATE_INTERVAL = 1
STARTER_UPDATE_INTERVAL = 1
""",
    )
    pids = pool.root / "pid"
    unit = q.add("/bin/sh", "-c", f"'echo $$ > {pids}; exec sleep 60'", iwd=str(pool.root))
    pool.start("collector", "startd")  # (the unit is there for its first fetch)
    pid = wait_for_pid(pids, "the fetched job to run")
    inputs.write_text("KeyboardIdle = 30\n")
    wait_for(lambda: job_stopped(pid), "the fetched job to be suspended")
    wait_for(
        lambda: any("jobstate=Suspended" in e for e in q.events(unit)),
        "UPDATE_JOB_INFO to report it Suspended",
    )
    inputs.write_text("KeyboardIdle = 5\n")
    # Suspended, and the owner is back: preempted, vacated, the unit back in the queue.
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "the owner's PREEMPT to evict it")
    wait_for(lambda: q.status()[unit][0] == "pending", "EVICT_CLAIM to requeue the unit")
    # The starter's JOB_EXIT and the startd's EVICT_CLAIM run apart: either may end first.
    wait_for(
        lambda: any(e.startswith("job_exit evict") for e in q.events(unit)),
        "JOB_EXIT to report the eviction",
    )
    seen = transitions(pool)
    assert seen[seen.index(14) :][:3] == [14, 16, 18]
