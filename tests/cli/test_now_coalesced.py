"""condor_now with several vacate-jobs on a real pool (HTCondor's test_condor_now.py, run
here): their dynamic slots are vacated and joined into one carved for the now-job, which
runs at once; the vacate-jobs go back to the queue. A vacate-job that will not go in
time fails the whole, in HTCondor's words, and the claims freed meanwhile are released."""

from __future__ import annotations

import htcondor2
from test_now import sleeper, status

from condorx.testing.pool import QUICK_POOL, alive, wait_for, wait_for_pid

PARTITIONABLE = """\
NUM_CPUS = 3
MEMORY = 3072
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_1 = 100%
SLOT_TYPE_1_PARTITIONABLE = True
START = TRUE
"""


def start(pool, extra: str = "") -> None:
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL + PARTITIONABLE + extra)
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")


def victims(pool, stubborn: bool = False) -> int:
    """Three one-core jobs that fill the partitionable slot, each writing its pid; when
    `stubborn`, job 0 ignores SIGTERM (a vacate's first word)."""
    script = pool.root / "victim.sh"
    ignore = 'if [ "$1" = 0 ]; then trap "" TERM; fi\n' if stubborn else ""
    script.write_text(f"#!/bin/sh\necho $$ > {pool.root}/v$1.pid\n{ignore}exec sleep 600\n")
    script.chmod(0o755)
    return pool.submit(
        f"executable = {script}\narguments = $(Process)\n"
        f"log = {pool.root / 'now.log'}\n"
        "request_cpus = 1\nrequest_memory = 1024\nqueue 3\n",
        name="victims.sub",
    )


def now_job(pool) -> int:
    return pool.submit(
        "executable = /bin/sh\n"
        f"arguments = \"-c 'echo $$ > {pool.root / 'now.pid'}; exec sleep 600'\"\n"
        f"log = {pool.root / 'now.log'}\n"
        "request_cpus = 3\nrequest_memory = 2048\nqueue\n",
        name="now.sub",
    )


def dynamic_slots(pool) -> list[list[str]]:
    out = pool.cli("condorx.cli.status", "-af", "Name", "SlotType", "Cpus", "Memory").stdout
    return sorted(line.split() for line in out.splitlines() if " Dynamic " in line)


def test_condor_now_joins_three_dynamic_slots_for_the_now_job(pool):
    start(pool)
    pids = [pool.root / f"v{i}.pid" for i in range(3)]
    v = victims(pool)
    victim_pids = [wait_for_pid(p) for p in pids]
    job = now_job(pool)
    assert status(pool, job) == 1  # no core is free

    r = pool.cli("condorx.cli.now", str(job), f"{v}.0", f"{v}.1", f"{v}.2", check=False)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    wait_for_pid(pool.root / "now.pid", "the now-job to start")
    for pid in victim_pids:
        wait_for(lambda pid=pid: not alive(pid), "each vacate-job to stop")
    assert status(pool, job) == 2
    wait_for(
        lambda: [status(pool, f"{v}.{p}") for p in range(3)] == [1, 1, 1],
        "the vacate-jobs back in the queue, idle",
    )
    # One dynamic slot, of the now-job's size, where the three were.
    wait_for(lambda: [s[2:] for s in dynamic_slots(pool)] == [["3", "2048"]], "one slot of 3")
    host = pool.cli("condorx.cli.q", str(job), "-af", "RemoteHost").stdout.strip()
    assert host == dynamic_slots(pool)[0][0]

    events = list(htcondor2.JobEventLog(str(pool.root / "now.log")).events(0))
    evicted = {e.proc for e in events if e.type == htcondor2.JobEventType.JOB_EVICTED}
    assert evicted == {0, 1, 2}
    assert any(e.cluster == job and e.type == htcondor2.JobEventType.EXECUTE for e in events)
    assert "coalesced 3 slots into" in (pool.root / "log" / "StartLog").read_text()


def test_a_vacate_job_that_will_not_go_in_time_fails_condor_now(pool):
    # Job 0 ignores SIGTERM, and its hard kill is a minute off; the schedd waits two
    # seconds for all three.
    start(pool, "SCHEDD_NOW_JOB_VACATE_TIMEOUT = 2\nKILLING_TIMEOUT = 60\n")
    v = victims(pool, stubborn=True)
    pids = [wait_for_pid(pool.root / f"v{i}.pid") for i in range(3)]
    job = now_job(pool)
    r = pool.cli("condorx.cli.now", str(job), f"{v}.0", f"{v}.1", f"{v}.2", check=False)
    assert (r.returncode, r.stderr) == (0, "")
    sched_log = pool.root / "log" / "SchedLog"
    words = f"[now job {job}.0]: targeted job(s) did not vacate quickly enough, failing"
    wait_for(lambda: words in sched_log.read_text(), "the schedd to give up")
    for pid in pids[1:]:
        wait_for(lambda pid=pid: not alive(pid), "the vacate-jobs that could go to stop")
    assert alive(pids[0])
    # The two claims freed are released, not coalesced (their jobs, idle again, may be
    # matched anew at once); the now-job waits to be matched as any job.
    start_log = pool.root / "log" / "StartLog"
    released = "Claimed/Idle -> Preempting/Vacating (transition 10: the schedd released"
    wait_for(lambda: start_log.read_text().count(released) == 2, "the freed claims released")
    assert status(pool, job) == 1
    assert "coalesced" not in (pool.root / "log" / "StartLog").read_text()


def test_several_vacate_jobs_on_static_slots_are_refused(running):
    a, b = sleeper(running, "a.pid"), sleeper(running, "b.pid")
    wait_for_pid(running.root / "a.pid"), wait_for_pid(running.root / "b.pid")
    c = sleeper(running, "c.pid")
    r = running.cli("condorx.cli.now", str(c), str(a), str(b), check=False)
    assert (r.returncode, r.stderr) == (
        1,
        "Unable to reassign slot: the vacate-jobs must run in dynamic slots to be coalesced.\n",
    )
    assert status(running, a) == 2 and status(running, b) == 2
