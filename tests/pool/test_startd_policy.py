"""The startd's policy state machine on real daemons and real processes: the owner's
keyboard and load come from STARTD_INPUTS_OVERRIDE (the startd reads it at every poll),
the jobs are real process trees, and each transition is checked in the StartLog by its
number, in condor_status, in the job queue and in the processes themselves (stopped,
continued, sent SIGTERM, killed)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
import trio
from test_jobs_run import history, queue

from condorx.client.connection import Address, connect, daemon_credentials
from condorx.testing.pool import QUICK_POOL, wait_for, wait_for_pid
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.procs import job_running, job_stopped

BASE = (
    QUICK_POOL
    + """\
POLLING_INTERVAL = 1
MATCH_TIMEOUT = 3
KILLING_TIMEOUT = 3
NUM_CPUS = 1
RunBenchmarks = false
"""
)


def start(pool: Pool, policy: str, keyboard: int = 3600) -> Pool:
    inputs = pool.root / "inputs"
    inputs.write_text(f"KeyboardIdle = {keyboard}\n")
    with open(pool.config_file, "a") as f:
        f.write(BASE + f"STARTD_INPUTS_OVERRIDE = {inputs}\n" + policy)
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    return pool


def keyboard(pool: Pool, idle: int) -> None:
    (pool.root / "inputs").write_text(f"KeyboardIdle = {idle}\n")


def transitions(pool: Pool) -> list[int]:
    log = (pool.root / "log" / "StartLog").read_text()
    return [int(n) for n in re.findall(r"\(transition (\d+):", log)]


def expect_after(pool: Pool, first: int, expected: list[int]) -> None:
    """The transitions from the first `first` on begin with `expected`; if not, the
    StartLog's lines say why (each transition's cause is logged with it)."""
    seen = transitions(pool)
    got = seen[seen.index(first) :][: len(expected)] if first in seen else []
    if got != expected:
        lines = (pool.root / "log" / "StartLog").read_text().splitlines()
        tail = "\n".join(ln for ln in lines if "condorx.startd" in ln)[-4000:]
        raise AssertionError(f"transitions {got} != {expected}; StartLog:\n{tail}")


def busy_sleeper(pool: Pool, policy: str, trap: str = "") -> tuple[Pool, int, int]:
    """A pool with `policy` running one sleeper job: the pool, its cluster and pid."""
    p = start(pool, policy)
    c, pid = sleeper(p, trap=trap)
    wait_for(lambda: slot_state(p) == "Claimed/Busy", "the job to run")
    return p, c, pid


def rank_match(pool: Pool, claim_id: str) -> dict[str, str]:
    """A negotiator's preempting match (by RANK) for the pool's one slot, as sent to
    its startd, from a schedd that is not there unless the test plays it."""
    slot = pool.cli("condorx.cli.status", "-af", "Name").stdout.split()[0]
    return {"slot": slot, "claim_id": claim_id, "schedd": "", "user": "u", "preempts": "rank"}


def slot_states(pool: Pool) -> list[str]:
    """Each slot's State/Activity as condor_status shows them, by slot name."""
    out = pool.cli("condorx.cli.status", "-af", "Name", "State", "Activity").stdout
    return [f"{s}/{a}" for _, s, a in sorted(ln.split() for ln in out.splitlines())]


def slot_state(pool: Pool) -> str:
    out = pool.cli("condorx.cli.status", "-af", "State", "Activity").stdout.split()
    return "/".join(out[:2])


SLEEPER = """
executable = /bin/sh
arguments = "-c 'echo $$ > {root}/pid; {trap} while true; do sleep 0.2; done'"
log = job.log
queue
"""


def sleeper(pool: Pool, trap: str = "") -> tuple[int, int]:
    """Submit a job that runs until it is stopped; returns its cluster and, once it
    runs, its shell's pid."""
    (pool.root / "pid").unlink(missing_ok=True)
    c = pool.submit(SLEEPER.format(root=pool.root, trap=trap))
    return c, wait_for_pid(pool.root / "pid")


@pytest.fixture
def desktop(pool: Pool) -> Pool:
    """A desktop policy: start when the keyboard has been idle a minute, suspend when it
    is touched, continue after two idle minutes, and preempt after 3 s suspended."""
    return start(
        pool,
        """
START = KeyboardIdle > 60
WANT_SUSPEND = True
SUSPEND = KeyboardIdle < 60
CONTINUE = KeyboardIdle > 120
PREEMPT = (Activity == "Suspended") && (CurrentTime - EnteredCurrentActivity > 3)
WANT_VACATE = True
KILL = false
""",
    )


def test_owner_and_unclaimed_follow_the_keyboard(desktop):
    wait_for(lambda: slot_state(desktop) == "Unclaimed/Idle", "the slot to be Unclaimed")
    assert transitions(desktop)[:1] == [1]  # Owner at start, then Unclaimed
    keyboard(desktop, 5)
    wait_for(lambda: slot_state(desktop) == "Owner/Idle", "the slot to go back to Owner")
    keyboard(desktop, 600)
    wait_for(lambda: slot_state(desktop) == "Unclaimed/Idle", "the slot to be Unclaimed again")
    assert transitions(desktop) == [1, 2, 1]


def test_suspend_stops_the_job_and_continue_resumes_it(desktop):
    c, pid = sleeper(desktop)
    wait_for(lambda: slot_state(desktop) == "Claimed/Busy", "the job to run")
    keyboard(desktop, 5)
    wait_for(lambda: job_stopped(pid), "the job's processes to be stopped")
    wait_for(lambda: queue(desktop, "JobStatus") == [["7"]], "the schedd to show it Suspended")
    wait_for(lambda: slot_state(desktop) == "Claimed/Suspended", "the slot to show Suspended")
    keyboard(desktop, 600)
    wait_for(lambda: job_running(pid), "the job to continue")
    wait_for(lambda: queue(desktop, "JobStatus") == [["2"]], "the schedd to show it Running")
    wait_for(lambda: slot_state(desktop) == "Claimed/Busy", "the slot to show Busy")
    assert transitions(desktop)[-2:] == [14, 15]
    desktop.cli("condorx.cli.act:rm", str(c))


def test_suspended_too_long_is_preempted_vacated_and_requeued(desktop):
    c, pid = sleeper(desktop)
    wait_for(lambda: slot_state(desktop) == "Claimed/Busy", "the job to run")
    keyboard(desktop, 5)  # suspended, then (3 s later) PREEMPT: retire, vacate, Owner
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "the job to be vacated")
    wait_for(lambda: queue(desktop, "JobStatus") == [["1"]], "the job to be back in the queue")
    wait_for(lambda: slot_state(desktop) == "Owner/Idle", "the slot to be the owner's")
    seen = transitions(desktop)
    assert seen[seen.index(14) :] == [14, 16, 18, 22]  # suspended, retire, vacate, Owner
    log = desktop.root / "job.log"
    wait_for(lambda: "Job was evicted" in log.read_text(), "the eviction in the user log")
    assert queue(desktop, "NumJobStarts") == [["1"]]
    keyboard(desktop, 600)  # the owner leaves: the job runs again on the same slot
    wait_for(lambda: queue(desktop, "NumJobStarts") == [["2"]], "the job to run again")
    desktop.cli("condorx.cli.act:rm", str(c))


def test_a_job_that_ignores_the_soft_kill_is_killed(pool):
    p = start(
        pool,
        """
START = KeyboardIdle > 60
WANT_SUSPEND = False
PREEMPT = KeyboardIdle < 60
WANT_VACATE = True
KILL = (CurrentTime - EnteredCurrentActivity) > 2
""",
    )
    c, pid = sleeper(p, trap="trap : TERM;")
    wait_for(lambda: slot_state(p) == "Claimed/Busy", "the job to run")
    keyboard(p, 5)
    wait_for(lambda: slot_state(p) == "Preempting/Vacating", "the slot to vacate")
    time.sleep(1)
    assert Path(f"/proc/{pid}").exists()  # it ignored SIGTERM
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "KILL to hard-kill the job")
    wait_for(lambda: queue(p, "JobStatus") == [["1"]], "the job to be requeued")
    seen = transitions(p)
    assert seen[seen.index(13) :] == [13, 18, 21, 25]
    p.cli("condorx.cli.act:rm", str(c))


def test_retirement_lets_a_job_finish(pool):
    p = start(
        pool,
        """
START = KeyboardIdle > 60
PREEMPT = KeyboardIdle < 60
MaxJobRetirementTime = 30
""",
    )
    c = p.submit("executable = /bin/sh\narguments = \"-c 'sleep 3'\"\nlog = job.log\nqueue\n")
    wait_for(lambda: slot_state(p) == "Claimed/Busy", "the job to run")
    keyboard(p, 5)
    wait_for(lambda: slot_state(p) == "Claimed/Retiring", "the claim to retire")
    wait_for(lambda: history(p, "ClusterId", "JobStatus") == [[str(c), "4"]], "the job to finish")
    seen = transitions(p)
    assert seen[seen.index(13) :][:3] == [13, 18, 22]  # retire, then Preempting once it ended
    assert "Job was evicted" not in (p.root / "job.log").read_text()


def test_condor_vacate_sends_the_job_back(desktop):
    c, pid = sleeper(desktop)
    wait_for(lambda: slot_state(desktop) == "Claimed/Busy", "the job to run")
    out = desktop.cli("condorx.cli.vacate").stdout
    assert "Vacated slot1@" in out
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "the job to be vacated")
    wait_for(lambda: queue(desktop, "NumJobStarts") == [["2"]], "the job to run again")
    seen = transitions(desktop)
    assert [13, 18, 22] == seen[seen.index(13) :][:3]
    desktop.cli("condorx.cli.act:rm", str(c))


def test_an_unclaimed_match_lapses_after_match_timeout(desktop):
    wait_for(lambda: slot_state(desktop) == "Unclaimed/Idle", "the slot to be Unclaimed")
    slot = desktop.cli("condorx.cli.status", "-af", "Name").stdout.split()[0]
    reply = desktop.call_daemon(
        "startd", {"cmd": "match", "slot": slot, "claim_id": "c1", "schedd": "", "user": "u"}
    )
    assert reply["ok"]
    wait_for(lambda: slot_state(desktop) == "Matched/Idle", "the slot to be Matched")
    ad = desktop.cli("condorx.cli.status", "-af", "Requirements").stdout.strip()
    assert ad == "false"  # it lies about START while Matched
    wait_for(lambda: slot_state(desktop) == "Unclaimed/Idle", "the match to lapse")
    assert transitions(desktop)[-3:] == [6, 8, 1]


def test_starting_state_and_attributes(desktop):
    wait_for(lambda: slot_state(desktop) == "Unclaimed/Idle", "the slot to be Unclaimed")
    names = [
        "KeyboardIdle",
        "ConsoleIdle",
        "LoadAvg",
        "CondorLoadAvg",
        "ClockMin",
        "ClockDay",
        "VirtualMemory",
        "VirtualMachineID",
        "CurrentRank",
        "EnteredCurrentState",
    ]
    row = desktop.cli("condorx.cli.status", "-af", *names).stdout.split()
    values = dict(zip(names, row, strict=True))
    assert values["KeyboardIdle"] == "3600" and values["ConsoleIdle"] == "3600"
    t = time.localtime()
    assert abs(int(values["ClockMin"]) - (t.tm_hour * 60 + t.tm_min)) <= 1
    assert int(values["ClockDay"]) == (t.tm_wday + 1) % 7
    assert float(values["CondorLoadAvg"]) == 0.0 and values["VirtualMachineID"] == "1"
    assert os.getloadavg() and float(values["LoadAvg"]) >= 0.0


def test_a_claim_that_comes_before_its_match(desktop):
    wait_for(lambda: slot_state(desktop) == "Unclaimed/Idle", "the slot to be Unclaimed")
    slot = desktop.cli("condorx.cli.status", "-af", "Name").stdout.split()[0]
    claim = {"claim_id": "c2", "slot": slot, "schedd": "", "user": "u"}

    async def claim_then_match() -> list[int]:
        address = Address.parse(desktop.daemon("startd").address())
        ch = await connect(address, daemon_credentials(desktop.cfg))  # held: the claim's
        try:
            assert (await ch.request({"cmd": "claim", **claim}))["ok"]
            # The negotiator's word of the same match arrives after: nothing more to do.
            other = await connect(address, daemon_credentials(desktop.cfg))
            try:
                assert (await other.request({"cmd": "match", **claim}))["ok"]
            finally:
                await other.aclose()
            return transitions(desktop)
        finally:
            await ch.aclose()

    seen = trio.run(claim_then_match)
    assert seen[-1] == 5 and 6 not in seen
    # The claim's connection has closed: the claim ends with it (10, then 25: no vacating).
    wait_for(lambda: transitions(desktop)[-3:] == [10, 25, 1], "the lost claim to end")


def test_claim_worklife_ends_the_claim_after_its_job(pool):
    p = start(pool, "CLAIM_WORKLIFE = 2\n")
    p.submit("executable = /bin/sleep\narguments = 3\nlog = job.log\nqueue 2\n")
    wait_for(lambda: len(history(p, "ClusterId")) == 2, "both jobs to run")
    log = (p.root / "log" / "StartLog").read_text()
    # Each job ran on a claim of its own: the first claim took no second job.
    assert transitions(p).count(9) == 2
    assert "(transition 10: CLAIM_WORKLIFE is over)" in log
    assert "Job was evicted" not in (p.root / "job.log").read_text()


def test_a_job_the_slot_ranks_higher_preempts_the_running_one(pool):
    # MATCH_TIMEOUT long enough for a loaded machine's schedd to claim the match.
    p = start(
        pool, "RANK = TARGET.Important =?= True\nMaxJobRetirementTime = 0\nMATCH_TIMEOUT = 30\n"
    )
    low, low_pid = sleeper(p)
    wait_for(lambda: slot_state(p) == "Claimed/Busy", "the first job to run")
    marker = p.root / "important-ran"
    important = p.submit(
        f"""
executable = /bin/sh
arguments = "-c 'touch {marker}'"
+Important = True
log = job.log
queue
""",
    )
    wait_for(lambda: not Path(f"/proc/{low_pid}").exists(), "the first job to be preempted")
    wait_for(lambda: marker.exists(), "the job the slot prefers to run")
    expect_after(p, 13, [13, 18, 23, 11])  # retire, vacate, new claim, run
    assert "preempting match (rank)" in (p.root / "log" / "StartLog").read_text()
    wait_for(lambda: history(p, "ClusterId") == [[str(important)]], "it to finish")
    # The preempted job was requeued, not lost, and runs again.
    wait_for(lambda: queue(p, "NumJobStarts") == [["2"]], "the preempted job to run again")
    assert "Job was evicted" in (p.root / "job.log").read_text()
    p.cli("condorx.cli.act:rm", str(low))


def test_condor_suspend_holds_until_condor_continue(pool):
    p = start(pool, "WANT_SUSPEND = True\nSUSPEND = False\nCONTINUE = True\n")
    c, pid = sleeper(p)
    wait_for(lambda: queue(p, "JobStatus") == [["2"]], "the job to run")
    p.cli("condorx.cli.act:suspend", str(c))
    wait_for(lambda: queue(p, "JobStatus") == [["7"]], "the schedd to show it Suspended")
    time.sleep(3)  # three polls: CONTINUE is true, but only the user may resume it
    assert job_stopped(pid) and queue(p, "JobStatus") == [["7"]]
    assert slot_state(p) == "Claimed/Suspended"
    p.cli("condorx.cli.act:resume", str(c))
    wait_for(lambda: queue(p, "JobStatus") == [["2"]], "the schedd to show it Running")
    assert job_running(pid) and transitions(p)[-2:] == [14, 15]
    p.cli("condorx.cli.act:rm", str(c))


def test_a_preempting_match_that_lapses_while_the_job_vacates(pool):
    # The old job takes longer to vacate than MATCH_TIMEOUT and the preempting schedd
    # never claims: the old claim still ends, and the slot has no claim to go to.
    p, c, pid = busy_sleeper(
        pool,
        "MaxJobRetirementTime = 0\nMATCH_TIMEOUT = 2\n",
        trap="slow() { sleep 5; exit 0; }; trap slow TERM;",
    )
    claim = rank_match(p, "c3")
    assert p.call_daemon("startd", {"cmd": "match", **claim})["ok"]
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "the old job to be vacated")
    wait_for(lambda: queue(p, "NumJobStarts") == [["2"]], "the old job to run again")
    seen = transitions(p)
    assert seen[seen.index(13) :][:4] == [13, 18, 22, 1]
    p.cli("condorx.cli.act:rm", str(c))


def as_user(pool: Pool, user: str) -> dict[str, str]:
    """The environment of a user who authenticates with a token the pool's admin made."""
    token = pool.cli("condorx.cli.token:create", "-identity", user).stdout.strip()
    return {**pool.env, "CONDORX_TOKEN": token}


def test_a_user_of_better_priority_preempts_through_preemption_requirements(open_pool):
    # alice and bob have no accounts here: their jobs run as nobody, in an open pool.
    p = start(
        open_pool,
        """
PRIORITY_HALFLIFE = 2
PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2
MaxJobRetirementTime = 0
MATCH_TIMEOUT = 30
""",
    )
    out = p.root / "out"
    (p.root / "job.sub").write_text(SLEEPER.format(root=out, trap=""))
    p.cli("condorx.cli.submit", "job.sub", env=as_user(p, "alice"))
    alice_pid = wait_for_pid(out / "pid", "alice's job to start")
    marker = out / "bob-ran"
    (p.root / "bob.sub").write_text(
        f"executable = /bin/sh\narguments = \"-c 'touch {marker}'\"\nlog = job.log\nqueue\n"
    )
    p.cli("condorx.cli.submit", "bob.sub", env=as_user(p, "bob"))
    # Bob has used nothing, alice holds the slot: her priority is soon 1.2 times worse.
    wait_for(lambda: marker.exists(), "bob's job to run in alice's place")
    assert not Path(f"/proc/{alice_pid}").exists()
    expect_after(p, 13, [13, 18, 23, 11])
    assert "preempting match (priority) for bob" in (p.root / "log" / "StartLog").read_text()

    def alices() -> list[str]:
        return p.cli("condorx.cli.q", "-allusers", "-af", "Owner", "NumJobStarts").stdout.split()

    wait_for(lambda: alices() == ["alice", "2"], "alice's job to run again")


def test_retirement_that_runs_out_while_suspended_preempts(pool):
    # Transition 17: the claim retires (condor_vacate), the owner's return suspends it
    # (20), and MaxJobRetirementTime falls to 0 meanwhile: Preempting, straight from
    # Suspended.
    p = start(
        pool,
        """
WANT_SUSPEND = True
SUSPEND = KeyboardIdle < 60
CONTINUE = False
MaxJobRetirementTime = ifThenElse(KeyboardIdle < 20, 0, 600)
""",
    )
    c, pid = sleeper(p)
    wait_for(lambda: slot_state(p) == "Claimed/Busy", "the job to run")
    p.cli("condorx.cli.vacate")
    wait_for(lambda: slot_state(p) == "Claimed/Retiring", "the claim to retire")
    keyboard(p, 50)
    wait_for(lambda: job_stopped(pid), "the retiring job to be suspended")
    keyboard(p, 5)
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "the suspended job to be vacated")
    # The startd logs 22 once the starter has reported the job gone.
    wait_for(lambda: 22 in transitions(p), "the slot to leave Preempting")
    seen = transitions(p)
    assert seen[seen.index(13) :][:4] == [13, 20, 17, 22]
    log = p.root / "job.log"
    wait_for(lambda: "Job was evicted" in log.read_text(), "the eviction in the user log")
    p.cli("condorx.cli.act:rm", str(c))


def test_a_job_using_the_cpu_is_measured_and_suspended(pool):
    # A busy loop gets a fraction of a core on a machine the rest of the suite keeps
    # busy (CI: load 2 on 2 cores), so the bar is well under one core.
    p = start(pool, "WANT_SUSPEND = True\nSUSPEND = CondorLoadAvg > 0.25\nCONTINUE = False\n")
    pids = p.root / "pids"
    c = p.submit(
        f"""
executable = /bin/sh
arguments = "-c 'echo $$ > {pids}; while :; do :; done'"
log = job.log
queue
""",
    )
    pid = wait_for_pid(pids)
    # Its process group's real CPU use, not an injected input, is what SUSPEND reads.
    wait_for(lambda: job_stopped(pid), "the busy job to be suspended", timeout=60)
    assert transitions(p)[-1] == 14

    def load() -> float:
        return float(p.cli("condorx.cli.status", "-af", "CondorLoadAvg").stdout.split()[0])

    # The collector has the load the startd measured once the startd's next update is in.
    busy = wait_for(lambda: (v := load()) > 0.25 and v, "the busy job's load in condor_status")
    wait_for(lambda: load() < busy, "the stopped job's load to fall")
    p.cli("condorx.cli.act:rm", str(c))


def test_a_retirement_for_a_match_that_lapses_goes_back_to_busy(pool):
    # Transition 19: the claim retires for a preempting match (the job may finish its
    # 60 s of retirement first); the match is never claimed, so the retirement is undone.
    p, c, pid = busy_sleeper(pool, "MaxJobRetirementTime = 60\nMATCH_TIMEOUT = 2\n")
    claim = rank_match(p, "c4")
    assert p.call_daemon("startd", {"cmd": "match", **claim})["ok"]
    wait_for(lambda: 19 in transitions(p), "the retirement to be undone")
    expect_after(p, 13, [13, 19])
    assert job_running(pid)  # never disturbed
    p.cli("condorx.cli.act:rm", str(c))


def test_a_preempting_claim_takes_the_slot_after_killing(pool):
    # Transition 24: WANT_VACATE is false, so the old job is killed (Preempting/Killing),
    # and the slot goes to the preempting claim, which its schedd takes up.
    p, c, pid = busy_sleeper(
        pool,
        "MaxJobRetirementTime = 0\nWANT_VACATE = False\nMATCH_TIMEOUT = 30\n",
        trap="trap : TERM;",
    )
    claim = rank_match(p, "c5")

    async def match_and_claim() -> None:
        address = Address.parse(p.daemon("startd").address())
        other = await connect(address, daemon_credentials(p.cfg))
        try:
            assert (await other.request({"cmd": "match", **claim}))["ok"]
        finally:
            await other.aclose()
        ch = await connect(address, daemon_credentials(p.cfg))
        try:
            assert (await ch.request({"cmd": "claim", **claim}))["ok"]  # once the slot is free
            assert not Path(f"/proc/{pid}").exists()  # SIGKILL: its TERM trap did not matter
        finally:
            await ch.aclose()

    trio.run(match_and_claim)
    expect_after(p, 13, [13, 18, 24])
    p.cli("condorx.cli.act:rm", str(c))
