"""Job deferral on real daemons and the real clock: a deferred job waits (Running) and
then runs; a job with a prep time is matched only that long before its time; a job
inside its window runs at once; a job past its window is held with HoldReasonCode 20; a
held waiting job never starts; a suspended waiting job starts at its time and is at once
suspended; a cron job runs at two successive minutes as one job."""

from __future__ import annotations

import time
from pathlib import Path

from test_jobs_run import history, queue

from condorx.testing.pool import wait_for
from condorx.testing.procs import job_stopped


def test_a_deferred_job_waits_while_running_then_starts_on_time(running):
    stamp = running.root / "started-at"
    deferral = int(time.time()) + 8
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'date +%s > {stamp}'"
deferral_time = {deferral}
queue
""",
    )
    wait_for(lambda: queue(running, "JobStatus") == [["2"]], "the job to be matched and wait")
    assert not stamp.exists() and time.time() < deferral  # running, but not started yet
    wait_for(
        lambda: history(running, "ClusterId", "JobStatus") == [[str(c), "4"]],
        "the job to run at its deferral time",
    )
    assert int(stamp.read_text()) >= deferral


def test_current_time_plus_n_waits_n_seconds_after_the_job_reaches_the_machine(running):
    # The execute machine evaluates the expression when the job arrives (deferral manual), so
    # the job waits its 6 s in full however long it sat in the queue: here it is held at
    # submission, released 4 s later, and still waits 6 s from then.
    stamp = running.root / "started-at"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'date +%s > {stamp}'"
deferral_time = (CurrentTime + 6)
hold = true
queue
""",
    )
    long = running.cli("condorx.cli.q", "-l", str(c)).stdout
    assert "DeferralTime = (CurrentTime + 6)" in long  # kept as written, not fixed
    time.sleep(4)
    released = int(time.time())
    running.cli("condorx.cli.act:release", str(c))
    wait_for(
        lambda: history(running, "ClusterId", "JobStatus") == [[str(c), "4"]],
        "the job to run",
    )
    assert int(stamp.read_text()) >= released + 6


def test_a_prep_time_job_is_matched_only_that_long_before_its_time(running):
    stamp = running.root / "started-at"
    deferral = int(time.time()) + 22  # a time, as in the seed's example: an expression
    # (an expression of CurrentTime would move with the clock and never come within prep)
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'date +%s > {stamp}'"
deferral_time = {deferral}
deferral_prep_time = 10
queue
""",
    )
    long = running.cli("condorx.cli.q", "-l", str(c)).stdout
    assert "((time() + DeferralPrepTime) >= DeferralTime)" in long  # the schedd's clause
    # Slots are free and the negotiator runs every 2 s, yet the job is not matched early.
    while time.time() < deferral - 12:
        assert queue(running, "JobStatus") == [["1"]], "matched before its prep time"
        time.sleep(0.5)
    wait_for(lambda: queue(running, "JobStatus") == [["2"]], "the job to be matched", 15)
    matched = time.time()
    assert deferral - 11 <= matched < deferral  # matched in its prep time, then waits
    assert not stamp.exists()
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
    deferral = int(time.time()) + 10
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'touch {stamp}; exec sleep 300'"
deferral_time = {deferral}
log = job.log
queue
""",
    )
    wait_for(lambda: queue(running, "JobStatus") == [["2"]], "the job to be waiting")
    running.cli("condorx.cli.act:suspend", str(c))
    assert queue(running, "JobStatus") == [["7"]]
    assert _processes(str(stamp)) == [] and time.time() < deferral  # it still waits
    (pid,) = wait_for(lambda: _processes(str(stamp)), "the job to start at its time", 20)
    assert time.time() >= deferral
    wait_for(lambda: job_stopped(pid), "the job to be stopped")
    time.sleep(1)  # stopped before its first instruction: it never got to touch
    assert not stamp.exists() and queue(running, "JobStatus") == [["7"]]
    running.cli("condorx.cli.act:resume", str(c))
    assert queue(running, "JobStatus") == [["2"]]
    wait_for(stamp.exists, "the resumed job to run")
    running.cli("condorx.cli.act:rm", str(c))
    wait_for(lambda: history(running, "JobStatus") == [["3"]], "the removed job to leave")


def test_a_cron_job_runs_at_two_successive_minutes_as_one_job(running):
    runs = running.root / "runs"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'date +%s >> {runs}; sleep 2'"
cron_minute = *
cron_window = 40
on_exit_remove = NumJobStarts >= 2
log = job.log
queue
""",
    )
    first = int(queue(running, "DeferralTime")[0][0])
    assert first % 60 == 0
    # The second run cannot end before the next minute: no need to ask the schedd until
    # then (each condor_history costs a Python start on a machine the suite keeps busy).
    time.sleep(max(0.0, first + 60 - time.time()))
    wait_for(
        lambda: history(running, "ClusterId", "ProcId", "NumJobStarts") == [[str(c), "0", "2"]],
        "two runs of the cron job",
        timeout=150,
    )
    starts = [int(x) for x in runs.read_text().split()]
    assert len(starts) == 2
    assert starts[0] >= first and starts[1] >= first + 60  # one run per scheduled minute
    assert starts[1] - starts[0] >= 58  # never two at once
    log = (running.root / "job.log").read_text()
    assert log.count("Job executing on host") == 2


def test_a_freed_claim_does_not_take_a_cron_job_before_it_is_due(running):
    # The user's plain job runs; when it ends, its claim looks for another job of the
    # same user. The cron job (due in half an hour) must stay Idle, not sit on the slot.
    later = (time.gmtime().tm_min + 30) % 60
    cron_job = running.submit(f"executable = /bin/true\ncron_minute = {later}\nqueue\n")
    plain = running.submit("executable = /bin/sleep\narguments = 1\nqueue\n")
    wait_for(lambda: history(running, "ClusterId") == [[str(plain)]], "the plain job to run")
    time.sleep(3)  # the claim has been offered the cron job by now, and must have let it be
    assert queue(running, "ClusterId", "JobStatus") == [[str(cron_job), "1"]]


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
