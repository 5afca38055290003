"""The startd's policy state machine end to end, on real daemons and real processes: the
owner's keyboard and load come from STARTD_INPUTS_OVERRIDE (the startd reads it at every
poll), the jobs are real process trees, and each transition is checked in the StartLog by
its number, in condor_status, in the job queue and in the processes themselves (stopped,
continued, sent SIGTERM, killed). One test per path; the rules that depend on time
(MATCH_TIMEOUT, KILL, KILLING_TIMEOUT, CLAIM_WORKLIFE, retirement, preempting matches
that lapse) are tested at exact times in-process in tests/startd/test_policy_timing.py."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import trio

from condorx.client.collector import CollectorClient
from condorx.testing.pool import QUICK_POOL, wait_for, wait_for_pid
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.pool_views import history, queue, slot_state, transitions
from condorx.testing.procs import job_running, job_stopped
from condorx.transport.connection import Address, connect, daemon_credentials

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


def expect_after(pool: Pool, first: int, expected: list[int]) -> None:
    """The transitions from the first `first` on begin with `expected`; if not, the
    StartLog's lines say why (each transition's cause is logged with it)."""
    seen = transitions(pool)
    got = seen[seen.index(first) :][: len(expected)] if first in seen else []
    if got != expected:
        lines = (pool.root / "log" / "StartLog").read_text().splitlines()
        tail = "\n".join(ln for ln in lines if "condorx.startd" in ln)[-4000:]
        raise AssertionError(f"transitions {got} != {expected}; StartLog:\n{tail}")


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


# A desktop policy: start when the keyboard has been idle a minute, suspend when it is
# touched, continue after two idle minutes, and preempt after 3 s suspended (its timing
# is tested in-process, poll by poll, in test_policy_timing.py).
DESKTOP_POLICY = """
START = KeyboardIdle > 60
WANT_SUSPEND = True
SUSPEND = KeyboardIdle < 60
CONTINUE = KeyboardIdle > 120
PREEMPT = (Activity == "Suspended") && (CurrentTime - EnteredCurrentActivity > 3)
WANT_VACATE = True
KILL = false
"""


@pytest.fixture
def desktop(pool: Pool) -> Pool:
    """A pool whose startd has the desktop policy."""
    return start(pool, DESKTOP_POLICY)


@pytest.mark.parametrize(
    ("inform", "expected"),
    [("False", [5, 11, 12, 10, 22, 1]), ("True", [6, 9, 11, 12, 10, 22, 1])],
    ids=["the-schedds-claim-tells-the-startd", "the-negotiator-tells-the-startd"],
)
def test_a_job_runs_whether_the_negotiator_tells_the_startd_or_not(pool, inform, expected):
    """By default (HTCondor's NEGOTIATOR_INFORM_STARTD = False) the startd learns of a
    match from the schedd's claim, which brings the job: Unclaimed to Claimed directly
    (5), and Busy (11). Told first by the negotiator, it is Matched (6) and then
    claimed (9)."""
    p = start(pool, f"START = True\nNEGOTIATOR_INFORM_STARTD = {inform}\n")
    wait_for(lambda: slot_state(p) == "Unclaimed/Idle", "the slot to be Unclaimed")
    c = p.submit("executable = /bin/true\nqueue\n")
    wait_for(lambda: history(p, "ClusterId") == [[str(c)]], "the job to finish")
    wait_for(lambda: slot_state(p) == "Unclaimed/Idle", "the claim to be released")
    assert transitions(p)[1:] == expected


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


def offered_claim_id(pool: Pool, slot: str) -> str:
    """The claim id the slot offers in its private ad, read as the negotiator reads it."""
    client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    rows = trio.run(client.query_rows, "machineprivate", ["Name", "Capability"])
    return dict((str(n), str(c)) for n, c in rows)[slot]


def test_a_claim_that_comes_before_its_match(desktop):
    wait_for(lambda: slot_state(desktop) == "Unclaimed/Idle", "the slot to be Unclaimed")
    slot = desktop.cli("condorx.cli.status", "-af", "Name").stdout.split()[0]
    offered = offered_claim_id(desktop, slot)
    claim = {"claim_id": offered, "slot": slot, "schedd": "", "user": "u"}

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
    # The spent claim id claims the slot no more: the slot offers another.
    wait_for(lambda: offered_claim_id(desktop, slot) != offered, "a new offered claim id")
    # The claim's connection has closed: the claim ends with it (10, then 25: no vacating).
    wait_for(lambda: transitions(desktop)[-3:] == [10, 25, 1], "the lost claim to end")


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
