"""Job deferral end to end, on real daemons and the real clock: one test per path (the
timing rules themselves are tested at exact times in-process: test_deferral_wait.py
beside it, tests/schedd/test_cron_transitions.py, tests/schedd/test_shadows.py). A
deferred job is evaluated on arrival and runs after its wait; a prep time job carries
the schedd's clause; a job inside its window runs at once, one past it is held with
HoldReasonCode 20; a held waiting job never starts; a suspended waiting job starts at
its time and is at once suspended; a cron job runs at its minute and waits for the next;
condor_reconfig moves cron times to a new zone."""

from __future__ import annotations

import time
from pathlib import Path

from condorx.testing.pool import wait_for
from condorx.testing.pool_views import history, queue, slot_state
from condorx.testing.procs import job_stopped


def test_a_deferred_job_is_evaluated_on_arrival_and_runs_after_its_wait(running):
    # The wait itself, to the second, is tested in-process (test_deferral_wait.py);
    # here the whole path: the expression kept as written by the
    # schedd, evaluated on the execute machine, the job run after it.
    stamp = running.root / "started-at"
    before = int(time.time())
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'date +%s > {stamp}'"
deferral_time = (CurrentTime + 3)
queue
""",
    )
    long = running.cli("condorx.cli.q", "-l", str(c)).stdout
    assert "DeferralTime = (CurrentTime + 3)" in long  # kept as written, not fixed
    wait_for(
        lambda: history(running, "ClusterId", "JobStatus") == [[str(c), "4"]],
        "the job to run after its wait",
    )
    assert int(stamp.read_text()) >= before + 3


def test_a_prep_time_job_carries_the_schedds_clause_and_runs_at_its_time(running):
    # Which cycle may match it is the clause's rule, evaluated at exact times in
    # tests/cron/test_seed_examples.py; here the schedd appends it, the negotiator
    # honours it, and the job runs no earlier than its time.
    stamp = running.root / "started-at"
    deferral = int(time.time()) + 5  # a time, as in the manual's example
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'date +%s > {stamp}'"
deferral_time = {deferral}
deferral_prep_time = 3
queue
""",
    )
    long = running.cli("condorx.cli.q", "-l", str(c)).stdout
    assert "((time() + DeferralPrepTime) >= DeferralTime)" in long  # the schedd's clause
    wait_for(
        lambda: history(running, "ClusterId", "JobStatus") == [[str(c), "4"]],
        "the job to run at its deferral time",
    )
    assert int(stamp.read_text()) >= deferral


def test_a_late_job_inside_its_window_runs_and_one_past_it_is_held(running):
    ok = running.submit(
        "executable = /bin/true\ndeferral_time = CurrentTime - 2\ndeferral_window = 600\nqueue\n",
    )
    late = running.submit(
        "executable = /bin/true\ndeferral_time = CurrentTime - 100\ndeferral_window = 10\nqueue\n",
    )
    wait_for(lambda: history(running, "ClusterId") == [[str(ok)]], "the job in its window")
    wait_for(lambda: queue(running, "JobStatus") == [["5"]], "the late job to be held")
    (row,) = queue(running, "ClusterId", "HoldReasonCode", "HoldReason")
    assert row[:2] == [str(late), "20"]
    assert "missed its deferred execution time by" in " ".join(row[2:])


def test_holding_a_waiting_job_takes_it_off_the_machine_before_it_starts(running):
    stamp = running.root / "ran"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'touch {stamp}'"
deferral_time = CurrentTime + 30
queue
""",
    )
    wait_for(lambda: queue(running, "JobStatus") == [["2"]], "the job to be waiting")
    running.cli("condorx.cli.act:hold", str(c))
    wait_for(lambda: queue(running, "JobStatus") == [["5"]], "the job to be held")
    slots = running.cli("condorx.cli.status", "-af", "Activity").stdout.split()
    wait_for(
        lambda: "Busy" not in running.cli("condorx.cli.status", "-af", "Activity").stdout,
        f"the slot to be free again (was {slots})",
    )
    assert not stamp.exists()


def _processes(mark: str) -> list[int]:
    """The pids of processes whose command line contains `mark`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark in (entry / "cmdline").read_text():
                found.append(int(entry.name))
        except OSError:
            continue  # it ended while we looked
    return found


def test_a_suspended_waiting_job_starts_at_its_time_and_is_suspended_at_once(running):
    stamp = running.root / "ran"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'touch {stamp}; exec sleep 300'"
deferral_time = (CurrentTime + 5)
log = job.log
queue
""",
    )
    # Running in the queue, and on the slot: the schedd marks it Running as it asks the
    # startd to run it, and only a job the startd runs can be suspended.
    wait_for(lambda: queue(running, "JobStatus") == [["2"]], "the job to be waiting")
    wait_for(lambda: slot_state(running) == "Claimed/Busy", "the slot to run it")
    running.cli("condorx.cli.act:suspend", str(c))
    assert queue(running, "JobStatus") == [["7"]]
    assert _processes(str(stamp)) == []  # it still waits
    (pid,) = wait_for(lambda: _processes(str(stamp)), "the job to start at its time", 20)
    wait_for(lambda: job_stopped(pid), "the job to be stopped")
    # Stopped, and its first instruction has not run: it was started stopped.
    assert not stamp.exists() and queue(running, "JobStatus") == [["7"]]
    running.cli("condorx.cli.act:resume", str(c))
    assert queue(running, "JobStatus") == [["2"]]
    wait_for(stamp.exists, "the resumed job to run")
    running.cli("condorx.cli.act:rm", str(c))
    wait_for(lambda: history(running, "JobStatus") == [["3"]], "the removed job to leave")


def test_a_cron_job_runs_at_its_minute_and_waits_in_the_queue_for_the_next(running):
    # One run on the real clock (the next minute's start: at most 60 s away); that each
    # run is followed by the next minute's, never the one that just ran, is tested
    # in-process in tests/schedd/test_cron_transitions.py.
    runs = running.root / "runs"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'date +%s >> {runs}'"
cron_minute = *
cron_window = 40
on_exit_remove = false
log = job.log
queue
""",
    )
    first = int(queue(running, "DeferralTime")[0][0])
    assert first % 60 == 0
    wait_for(
        lambda: (
            queue(running, "NumJobStarts", "JobStatus", "DeferralTime")
            == [["1", "1", str(first + 60)]]
        ),
        "the cron job's run, and the job back in the queue for the next minute",
        timeout=90,
    )
    (start,) = [int(x) for x in runs.read_text().split()]
    assert first <= start < first + 40  # in its minute, inside its window
    assert (running.root / "job.log").read_text().count("Job executing on host") == 1
    running.cli("condorx.cli.act:rm", str(c))


def test_condor_reconfig_recomputes_cron_times_in_the_new_zone(pool):
    with open(pool.config_file, "a") as f:
        f.write("DAEMON_LIST = MASTER, COLLECTOR, SCHEDD\nCRON_TIME_ZONE = UTC\n")
    pool.reload()
    pool.start("master")
    up = lambda: pool.cli("condorx.cli.q", "-af", "ClusterId", check=False).returncode == 0  # noqa: E731
    wait_for(up, "the master to start a schedd")
    pool.submit("executable = /bin/true\ncron_minute = 0\ncron_hour = 12\nqueue\n")
    first = int(queue(pool, "DeferralTime")[0][0])
    assert time.gmtime(first).tm_hour == 12  # noon, UTC
    with open(pool.config_file, "a") as f:
        f.write("CRON_TIME_ZONE = Asia/Tokyo\n")  # UTC+9, no daylight saving
    pool.cli("condorx.cli.pool:reconfig")  # the schedd restarts, and recomputes

    def next_run() -> int | None:
        r = pool.cli("condorx.cli.q", "-af", "DeferralTime", check=False)
        return int(r.stdout) if r.returncode == 0 else None  # (None while it restarts)

    wait_for(
        lambda: (t := next_run()) is not None and time.gmtime(t).tm_hour == 3,
        "the next run to be noon in Tokyo (03:00 UTC)",
    )
    assert 0 < (next_run() or 0) - time.time() <= 86400
