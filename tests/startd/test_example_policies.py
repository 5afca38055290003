"""The example policies of manual 3.5.10, as shipped in examples/policies/,
each on a real pool: the keyboard, the owner's load and the clock come from
STARTD_INPUTS_OVERRIDE, so a ten-minute timer or a work day passes by moving the clock."""

from __future__ import annotations

import time
from pathlib import Path

from condorx.testing.pool import QUICK_POOL, wait_for, wait_for_pid
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.pool_views import history, queue, slot_states, transitions
from condorx.testing.procs import job_running, job_stopped
from condorx.transport.security import current_user

POLICIES = Path(__file__).resolve().parents[2] / "examples" / "policies"


class Machine:
    """The inputs the startd reads at every poll."""

    def __init__(self, pool: Pool) -> None:
        self.file = pool.root / "inputs"
        self.values = {"KeyboardIdle": 3600, "NonCondorLoadAvg": 0, "ClockOffset": 0}
        self.write()

    def set(self, **values: float) -> None:
        self.values.update(values)
        self.write()

    def write(self) -> None:
        self.file.write_text("".join(f"{k} = {v}\n" for k, v in self.values.items()))


def start(pool: Pool, policy: str, extra: str = "") -> Machine:
    """A pool whose startd runs `policy` (a file of examples/policies, or a path)."""
    machine = Machine(pool)
    with open(pool.config_file, "a") as f:
        f.write(
            QUICK_POOL
            + "POLLING_INTERVAL = 1\nNUM_CPUS = 1\nRunBenchmarks = false\n"
            + f"STARTD_INPUTS_OVERRIDE = {machine.file}\nPOLICY_DIR = {POLICIES}\n"
            + f"include : {policy if policy.startswith('/') else '$(POLICY_DIR)/' + policy}\n"
            + extra
        )
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    return machine


def sleeper(pool: Pool, name: str = "pid", extra: str = "") -> tuple[int, int]:
    pidfile = pool.root / name
    pidfile.unlink(missing_ok=True)
    c = pool.submit(
        f"""
executable = /bin/sh
arguments = "-c 'echo $$ > {pidfile}; while true; do sleep 0.2; done'"
log = job.log
{extra}
queue
""",
    )
    return c, wait_for_pid(pidfile)


def test_default_policy_suspends_continues_then_preempts(pool):
    m = start(pool, "default.config")
    c, pid = sleeper(pool)
    m.set(KeyboardIdle=5)  # the owner is back: a vanilla job is suspended
    wait_for(lambda: job_stopped(pid), "the job to be suspended")
    m.set(KeyboardIdle=400, ClockOffset=20)  # idle 5 minutes, suspended over 10 s
    wait_for(lambda: job_running(pid), "the job to continue")
    m.set(KeyboardIdle=5)
    # The processes, not condor_status (which may still show the first suspension).
    wait_for(lambda: job_stopped(pid), "the job to be suspended again")
    m.set(ClockOffset=20 + 700)  # suspended longer than MaxSuspendTime (10 minutes)
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "the job to be vacated")
    wait_for(lambda: queue(pool, "JobStatus") == [["1"]], "the job to be back in the queue")
    seen = transitions(pool)
    assert seen[seen.index(14) :] == [14, 15, 14, 16, 18, 22]
    wait_for(lambda: slot_states(pool) == ["Owner/Idle"], "Owner: the keyboard is still busy")
    pool.cli("condorx.cli.act:rm", str(c))


def test_test_job_policy_runs_one_users_jobs_whatever_the_keyboard(pool):
    # The seed's user is coltrane; here it is whoever runs the test.
    text = (POLICIES / "test_job.config").read_text().replace("coltrane", current_user())
    (pool.root / "test_job.config").write_text(text)
    m = start(pool, str(pool.root / "test_job.config"))
    m.set(KeyboardIdle=5, NonCondorLoadAvg=2.0)  # the owner is typing, and busy
    c, pid = sleeper(pool)  # starts although the keyboard is busy
    # (That it is then never suspended or preempted is tested over ten minutes of polls
    # in-process: tests/startd/test_policy_timing.py.)
    wait_for(lambda: slot_states(pool) == ["Claimed/Busy"], "the slot to show the job")
    assert job_running(pid)
    pool.cli("condorx.cli.act:rm", str(c))


def _local(days_ahead: int, hour: int) -> float:
    """The Unix time of `hour`:00 local time, `days_ahead` days from today."""
    t = time.localtime()
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday + days_ahead, hour, 0, 0, 0, 0, -1))


def _next_wednesday() -> int:
    return (2 - time.localtime().tm_wday) % 7 or 7  # tm_wday: Monday is 0


def test_time_of_day_policy_keeps_jobs_off_in_work_hours(pool):
    wed = _next_wednesday()
    m = start(pool, "time_of_day.config")
    m.set(ClockOffset=int(_local(wed, 10) - time.time()))  # Wednesday, 10:00
    wait_for(lambda: slot_states(pool) == ["Owner/Idle"], "the slot to be Owner in work hours")
    # In work hours START is false (tested hour by hour in-process: test_policy_timing.py);
    # here the job waits, and runs once the clock says 20:00.
    c = pool.submit("executable = /bin/sleep\narguments = 600\nlog = job.log\nqueue\n")
    m.set(ClockOffset=int(_local(wed, 20) - time.time()))  # Wednesday, 20:00
    wait_for(lambda: queue(pool, "JobStatus") == [["2"]], "the job to run after hours")
    m.set(ClockOffset=int(_local(wed + 1, 9) - time.time()))  # Thursday, 9:00
    wait_for(lambda: queue(pool, "JobStatus") == [["1"]], "the job to be preempted at 9:00")
    seen = transitions(pool)
    assert seen[seen.index(11) :][1:4] == [13, 18, 22]  # preempted, not suspended
    pool.cli("condorx.cli.act:rm", str(c))


def test_desktop_policy_a_desktop_minds_the_keyboard(pool):
    m = start(pool, "desktop.config", "IsDesktop = True\n")
    is_desktop = pool.cli("condorx.cli.status", "-af", "IsDesktop").stdout.strip()
    assert is_desktop == "true"  # STARTD_EXPRS publishes it
    c, pid = sleeper(pool)
    m.set(KeyboardIdle=5)
    # Only a desktop minds it (that a machine that is no desktop never does is tested over
    # ten minutes of polls in-process: test_policy_timing.py).
    wait_for(lambda: job_stopped(pid), "the desktop to suspend the job")
    pool.cli("condorx.cli.act:rm", str(c))


def test_no_preemption_policy_lets_jobs_finish_but_a_job_may_ask_for_less(pool):
    m = start(pool, "no_preemption.config")
    retire = pool.cli("condorx.cli.status", "-af", "MaxJobRetirementTime").stdout.strip()
    assert retire == str(3600 * 24 * 2)
    m.set(KeyboardIdle=5)  # PREEMPT is false: the owner coming back changes nothing
    c = pool.submit("executable = /bin/sh\narguments = \"-c 'sleep 4'\"\nlog = job.log\nqueue\n")
    wait_for(lambda: slot_states(pool) == ["Claimed/Busy"], "the job to run")
    pool.cli("condorx.cli.vacate")  # retires the claim: the job finishes first
    wait_for(lambda: slot_states(pool) == ["Claimed/Retiring"], "the claim to retire")
    wait_for(lambda: history(pool, "ClusterId", "JobStatus") == [[str(c), "4"]], "the job to end")
    assert "Job was evicted" not in (pool.root / "job.log").read_text()
    # A job asking for one second of retirement gets that, not the machine's two days.
    d, pid = sleeper(pool, extra="+MaxJobRetirementTime = 1")
    pool.cli("condorx.cli.vacate")
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "the job to be vacated")
    log = pool.root / "job.log"
    wait_for(lambda: "Job was evicted" in log.read_text(), "the eviction in the user log")
    pool.cli("condorx.cli.act:rm", str(d))


def test_two_slot_suspension(pool):
    start(pool, "two_slot_suspension.config")
    wait_for(lambda: len(slot_states(pool)) == 2, "two slots")
    # Slot 1's START is false without a high-priority job: it shows as Owner.
    low, low_pid = sleeper(pool, "low")  # only slot 2 takes it
    # The job runs; the collector hears of the claim with the startd's next update.
    wait_for(
        lambda: slot_states(pool) == ["Owner/Idle", "Claimed/Busy"],
        "condor_status to show slot 1 as Owner and slot 2 busy",
    )
    high, _ = sleeper(pool, "high", "+IsHighPrioJob = True")  # slot 1
    wait_for(lambda: job_stopped(low_pid), "slot 2's job to be suspended")
    wait_for(
        lambda: slot_states(pool) == ["Claimed/Busy", "Claimed/Suspended"],
        "condor_status to show slot 1 busy and slot 2 suspended",
    )
    pool.cli("condorx.cli.act:rm", str(high))
    wait_for(lambda: job_running(low_pid), "slot 2's job to continue")
    pool.cli("condorx.cli.act:rm", str(low))
