"""The startd's policy rules that depend on time, on its own code in-process and trio's
MockClock (`condorx.testing.startd_rig`): each transition at the exact poll the manual's
rules (3.5.8) call for. The jobs are a starter that runs no process; the real-process
paths (signals to process trees, the schedd's requeue, the user log) are in
tests/startd/test_startd_policy.py."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import trio
import trio.testing
from test_startd_policy import DESKTOP_POLICY

from condorx.classad import ClassAd
from condorx.testing.startd_rig import EPOCH, FakeStarter, Rig, Running, run_rig
from condorx.transport.peer import Peer
from condorx.transport.protocol.startd import (
    ClaimSlot,
    Continue,
    Deactivate,
    Match,
    Suspend,
    Vacate,
)

STOP, CONT, TERM, KILL = signal.SIGSTOP, signal.SIGCONT, signal.SIGTERM, signal.SIGKILL

DESKTOP = "\nPOLLING_INTERVAL = 1" + DESKTOP_POLICY


def since(rig: Rig, t: float) -> list[tuple[float, int]]:
    return [(when, n) for when, n in rig.steps if when >= t]


def test_a_job_suspended_too_long_is_preempted_at_the_first_poll_after_3_s(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        run = await rig.run_job(nursery)
        await trio.sleep_until(10.5)
        rig.keyboard(5)  # seen at the next poll (every POLLING_INTERVAL: 1 s)
        await rig.until(lambda: run.ended is not None)
        return since(rig, 1), rig.starters[0].signals, run.ended, rig.state()

    steps, signals, ended, state = run_rig(tmp_path, DESKTOP, test)
    # Suspended at 11; PREEMPT holds once more than 3 s have passed: at 15, not 14.
    assert steps == [(11, 14), (15, 16), (15, 18), (15, 22)]
    assert [(t, s) for t, s, _ in signals] == [(11, STOP), (15, CONT), (15, TERM), (15, CONT)]
    assert ended.vacated and ended.claim_ended and state == "Owner/Idle"


def test_owner_comes_back_at_the_next_poll_and_the_job_continues_after_two_idle_minutes(
    tmp_path,
):
    policy = DESKTOP.replace("PREEMPT = (Activity", "PREEMPT = False && (Activity")

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await rig.run_job(nursery)
        await trio.sleep_until(10.5)
        rig.keyboard(5)
        await rig.until(lambda: rig.state() == "Claimed/Suspended")
        rig.keyboard(121)
        await rig.until(lambda: rig.state() == "Claimed/Busy")
        return since(rig, 1), [(t, s) for t, s, _ in rig.starters[0].signals]

    steps, signals = run_rig(tmp_path, policy, test)
    assert steps == [(11, 14), (12, 15)]
    assert signals == [(11, STOP), (12, CONT)]


def test_a_job_that_ignores_the_soft_kill_is_killed_once_kill_holds(tmp_path):
    policy = """
POLLING_INTERVAL = 1
START = KeyboardIdle > 60
WANT_SUSPEND = False
PREEMPT = KeyboardIdle < 60
WANT_VACATE = True
KILL = (CurrentTime - EnteredCurrentActivity) > 2
"""

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        rig.next_starter = lambda: FakeStarter(ignores_term=True)
        run = await rig.run_job(nursery)
        await trio.sleep_until(5.5)
        rig.keyboard(5)
        await rig.until(lambda: run.ended is not None)
        return since(rig, 1), [(t, s) for t, s, _ in rig.starters[0].signals], rig.state()

    steps, signals, state = run_rig(tmp_path, policy, test)
    # Retire and vacate at 6 (no retirement time); Vacating more than 2 s: killed at 9.
    assert steps == [(6, 13), (6, 18), (9, 21), (9, 25)]
    assert signals == [(6, TERM), (6, CONT), (9, KILL)]
    assert state == "Owner/Idle"


def test_a_job_that_will_not_die_has_its_starter_killed_after_killing_timeout(tmp_path):
    policy = "POLLING_INTERVAL = 1\nKILLING_TIMEOUT = 3\nWANT_VACATE = False\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        rig.next_starter = lambda: FakeStarter(ignores_kill=True)
        run = await rig.run_job(nursery)
        await trio.sleep_until(2.5)
        await rig.runs.driver.nursery.start(_vacate, rig)  # condor_vacate, at 2.5
        starter = rig.starters[0]
        await rig.until(lambda: run.ended is not None)
        return since(rig, 1), [(t, s) for t, s, _ in starter.signals], starter.killed_at

    steps, signals, killed_at = run_rig(tmp_path, policy, test)
    assert steps[:2] == [(2.5, 13), (2.5, 18)]  # retire, then Preempting/Killing at once
    assert signals == [(2.5, KILL)]
    assert killed_at == 6  # the first poll (every 1 s) at least KILLING_TIMEOUT after


async def _vacate(rig: Rig, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    peer = _peer()
    await rig.claims.vacate(peer, Vacate(), None)  # type: ignore[arg-type]
    task_status.started()


def _peer(user: str = "u") -> Peer:
    return Peer(user, "token", "127.0.0.1")


def test_condor_suspend_holds_until_condor_continue_whatever_continue_says(tmp_path):
    policy = "POLLING_INTERVAL = 1\nWANT_SUSPEND = True\nSUSPEND = False\nCONTINUE = True\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        run = await rig.run_job(nursery)
        await trio.sleep_until(3.5)
        await rig.runs.suspend(_peer(), Suspend(run.claim_id), None)  # type: ignore[arg-type]
        await trio.sleep_until(63.5)  # sixty polls at which CONTINUE is true
        held = rig.state()
        await rig.runs.resume(_peer(), Continue(run.claim_id), None)  # type: ignore[arg-type]
        return held, since(rig, 1), [(t, s) for t, s, _ in rig.starters[0].signals]

    held, steps, signals = run_rig(tmp_path, policy, test)
    assert held == "Claimed/Suspended"
    assert steps == [(3.5, 14), (63.5, 15)]
    assert signals == [(3.5, STOP), (63.5, CONT)]


def test_an_unclaimed_match_lapses_at_the_first_poll_after_match_timeout(tmp_path):
    policy = "POLLING_INTERVAL = 1\nMATCH_TIMEOUT = 3\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await trio.sleep_until(0.5)
        slot = rig.slot().name
        await rig.claims.match(_peer(), Match(slot=slot, claim_id="c1"), None)  # type: ignore[arg-type]
        start = rig.driver.table.ads()[0]["START"].text
        await rig.until(lambda: rig.state() == "Unclaimed/Idle")
        return since(rig, 0.5), start

    steps, start = run_rig(tmp_path, policy, test)
    assert start == "false"  # it lies about START while Matched (manual 3.5.8.3)
    # Matched at 0.5; the poll at 3.5 is the first at or past 0.5 + 3.
    assert steps == [(0.5, 6), (3.5, 8), (3.5, 1)]


def test_claim_worklife_ends_the_claim_when_its_job_ends_past_it(tmp_path):
    policy = "POLLING_INTERVAL = 1\nCLAIM_WORKLIFE = 10\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        run = await rig.run_job(nursery)
        await trio.sleep_until(12.5)
        rig.starters[0].finish()  # the job ends by itself, past the claim's worklife
        await rig.until(lambda: run.ended is not None)
        await rig.until(lambda: rig.state() == "Unclaimed/Idle")
        return since(rig, 1), run.ended

    steps, ended = run_rig(tmp_path, policy, test)
    assert [n for _, n in steps] == [12, 10, 22, 1]  # Idle, worklife over, Owner, Unclaimed
    assert {t for t, _ in steps} == {12.5}
    assert ended.claim_ended and not ended.vacated  # it finished; no other job may come


def test_claim_worklife_0_runs_the_first_job_and_then_ends_the_claim(tmp_path):
    # HTCondor's group-quota tests set CLAIM_WORKLIFE = 0: the claim's first job runs
    # (its worklife counts only once a job has run on it), and the claim ends with it.
    policy = "POLLING_INTERVAL = 1\nCLAIM_WORKLIFE = 0\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await trio.sleep_until(0.5)
        run = await rig.run_job(nursery, idle=3)  # claimed at 0.5, its job sent at 3.5
        busy = rig.state()
        await trio.sleep_until(5.5)
        rig.starters[0].finish()
        await rig.until(lambda: run.ended is not None)
        await rig.until(lambda: rig.state() == "Unclaimed/Idle")
        return busy, since(rig, 5), run.ended

    busy, steps, ended = run_rig(tmp_path, policy, test)
    assert busy == "Claimed/Busy"
    assert steps == [(5.5, 12), (5.5, 10), (5.5, 22), (5.5, 1)]
    assert ended.claim_ended and not ended.vacated


def test_a_vacate_for_condor_now_never_kills_the_next_job_on_the_claim(tmp_path):
    # condor_now: the schedd vacates the running job (evict), the job ends on SIGTERM, and
    # the claim runs the now-job. KILLING_TIMEOUT later, the vacate's hard kill is for the
    # vacated job alone: the now-job runs on, untouched.
    policy = "POLLING_INTERVAL = 1\nKILLING_TIMEOUT = 5\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        first = await rig.run_job(nursery)
        await trio.sleep_until(2.5)
        request = Deactivate(claim_id=first.claim_id, why="evict", job="1.0")
        stopped = await rig.runs.deactivate(_peer(), request, None)  # type: ignore[arg-type]
        await rig.until(lambda: first.ended is not None)
        now_job = ClassAd({"ClusterId": 2, "ProcId": 0, "Owner": "u"})
        second = Running(first.claim_id, first.peer)
        nursery.start_soon(second.go, rig.runs, now_job)
        await rig.until(lambda: bool(second.frames))
        await trio.sleep_until(20)
        signals = [(t, s) for t, s, _ in rig.starters[0].signals]
        running = rig.state()
        rig.starters[0].finish()
        await rig.until(lambda: second.ended is not None)
        return stopped, first.ended, signals, running, second.ended

    stopped, first, signals, running, second = run_rig(tmp_path, policy, test)
    assert stopped.running and first.vacated and not first.claim_ended
    assert signals == [(2.5, TERM), (2.5, CONT)]  # to the vacated job; no SIGKILL at 7.5
    assert running == "Claimed/Busy"
    assert not second.vacated and not second.claim_ended


def test_retirement_lets_the_job_finish_within_max_job_retirement_time(tmp_path):
    policy = """
POLLING_INTERVAL = 1
START = KeyboardIdle > 60
PREEMPT = KeyboardIdle < 60
MaxJobRetirementTime = 30
"""

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        run = await rig.run_job(nursery)
        await trio.sleep_until(4.5)
        rig.keyboard(5)
        await trio.sleep_until(20.5)
        rig.starters[0].finish()
        await rig.until(lambda: run.ended is not None)
        return since(rig, 1), rig.starters[0].signals, run.ended

    steps, signals, ended = run_rig(tmp_path, policy, test)
    assert steps[:3] == [(5, 13), (20.5, 18), (20.5, 22)]  # retiring, gone once it ended
    assert signals == []  # never a signal
    assert not ended.vacated


def test_retirement_that_runs_out_while_suspended_preempts_from_suspended(tmp_path):
    policy = """
POLLING_INTERVAL = 1
WANT_SUSPEND = True
SUSPEND = KeyboardIdle < 60
CONTINUE = False
MaxJobRetirementTime = ifThenElse(KeyboardIdle < 20, 0, 600)
"""

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        run = await rig.run_job(nursery)
        await trio.sleep_until(2.5)
        await rig.claims.vacate(_peer(), Vacate(), None)  # type: ignore[arg-type]
        await trio.sleep_until(4.5)
        rig.keyboard(50)  # suspended while retiring (20)
        await trio.sleep_until(8.5)
        rig.keyboard(5)  # retirement time falls to 0: Preempting from Suspended (17)
        await rig.until(lambda: run.ended is not None)
        return since(rig, 1)

    steps = run_rig(tmp_path, policy, test)
    assert steps == [(2.5, 13), (5, 20), (9, 17), (9, 22), (9, 1)]


def _rank_match(rig: Rig, claim_id: str) -> Match:
    return Match(slot=rig.slot().name, claim_id=claim_id, user="v", preempts="rank")


def test_a_retirement_for_a_match_that_lapses_goes_back_to_busy(tmp_path):
    policy = "POLLING_INTERVAL = 1\nMaxJobRetirementTime = 60\nMATCH_TIMEOUT = 2\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await rig.run_job(nursery)
        await trio.sleep_until(3.5)
        await rig.claims.match(_peer("v"), _rank_match(rig, "c4"), None)  # type: ignore[arg-type]
        await trio.sleep_until(10)
        return since(rig, 1), rig.state(), rig.starters[0].signals

    steps, state, signals = run_rig(tmp_path, policy, test)
    # Retiring for the match at 3.5; the first poll at least 2 s later (6) finds it
    # unclaimed: back to Busy.
    assert steps == [(3.5, 13), (6, 19)]
    assert state == "Claimed/Busy" and signals == []  # never disturbed


def test_a_preempting_match_that_lapses_while_the_job_vacates_leaves_no_claim(tmp_path):
    policy = "POLLING_INTERVAL = 1\nMaxJobRetirementTime = 0\nMATCH_TIMEOUT = 2\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        rig.next_starter = lambda: FakeStarter(ignores_term=True)  # slow to vacate
        run = await rig.run_job(nursery)
        await trio.sleep_until(3.5)
        await rig.claims.match(_peer("v"), _rank_match(rig, "c3"), None)  # type: ignore[arg-type]
        await trio.sleep_until(8.5)
        rig.starters[0].finish()  # at last it goes
        await rig.until(lambda: run.ended is not None)
        await rig.until(lambda: rig.state() == "Unclaimed/Idle")
        return since(rig, 1)

    steps = run_rig(tmp_path, policy, test)
    assert steps == [(3.5, 13), (3.5, 18), (8.5, 22), (8.5, 1)]  # 22, not 23: no claim


def test_a_preempting_claim_takes_the_slot_once_the_old_job_is_killed(tmp_path):
    policy = "POLLING_INTERVAL = 1\nMaxJobRetirementTime = 0\nWANT_VACATE = False\n"

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await rig.run_job(nursery)
        await trio.sleep_until(3.5)
        await rig.claims.match(_peer("v"), _rank_match(rig, "c5"), None)  # type: ignore[arg-type]
        claim = ClaimSlot(claim_id="c5", slot=rig.slot().name, user="v")
        claimed = await rig.claims.claim(_peer("v"), claim, None)  # type: ignore[arg-type]
        return since(rig, 1), claimed.slot, rig.slot().claim.id, rig.starters[0].signals

    steps, slot, claim_id, signals = run_rig(tmp_path, policy, test)
    assert steps == [(3.5, 13), (3.5, 18), (3.5, 24)]
    assert (slot, claim_id) == ("slot1@" + slot.split("@", 1)[1], "c5")
    assert [s for _, s, _ in signals] == [KILL]


def test_the_machine_clock_is_the_ports(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await trio.sleep_until(7)
        return rig.driver.now()

    assert run_rig(tmp_path, "", test) == EPOCH + 7


FETCHING = """
POLLING_INTERVAL = 1
STARTD_JOB_HOOK_KEYWORD = TEST
TEST_HOOK_FETCH_WORK = /usr/bin/false
FetchWorkDelay = ifThenElse(State == "Claimed" && Activity == "Idle", 0, 6)
"""

FETCHED_JOB = 'Cmd = "/bin/true"\nOwner = "alice"\nClusterId = 1\nProcId = 0\n'


def test_fetch_work_delay_spaces_the_fetches_and_a_claim_fetches_again_at_once(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await trio.sleep_until(13.5)  # fetches at 0, 6 and 12 find nothing
        rig.work = [FETCHED_JOB, FETCHED_JOB]  # work arrives
        await rig.until(lambda: len(rig.starters) == 1 and rig.state() == "Claimed/Busy")
        taken = trio.current_time()
        await trio.sleep_until(20.5)
        rig.starters[0].finish()  # the fetched job ends: its claim asks again at once
        await rig.until(lambda: len(rig.fetches) >= 5)
        return rig.fetches, taken

    fetches, taken = run_rig(tmp_path, FETCHING, test)
    # Every 6 s while Unclaimed (FetchWorkDelay), checked at each 1 s poll; on the claim,
    # Claimed/Idle, a delay of 0: the next fetch as soon as the job has ended.
    assert fetches[:4] == [0.0, 6.0, 12.0, 18.0]
    assert 18.0 <= taken < 18.1
    assert fetches[4] == 20.5


# -- the manual's example policies (examples/policies, manual 3.5.10) -------------------

POLICIES = Path(__file__).resolve().parents[2] / "examples" / "policies"


def example(tmp_path: Path, name: str, extra: str = "") -> str:
    """The configuration that includes example policy `name` (its user coltrane is
    "tester" here)."""
    text = (POLICIES / name).read_text().replace("coltrane", "tester")
    (tmp_path / name).write_text(text)
    return f"POLLING_INTERVAL = 1\nPOLICY_DIR = {POLICIES}\ninclude : {tmp_path / name}\n" + extra


def job_of_tester() -> ClassAd:
    return ClassAd({"ClusterId": 1, "ProcId": 0, "Owner": "tester", "JobUniverse": 5})


def test_the_test_users_job_runs_on_whatever_the_owner_does(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        rig.inputs(KeyboardIdle=5, NonCondorLoadAvg=2.0)  # the owner types, and is busy
        await trio.sleep_until(1.5)
        await rig.run_job(nursery, job_of_tester(), user="tester")
        started = trio.current_time()
        await trio.sleep_until(started + 600)  # ten minutes of polls
        return rig.state(), [n for t, n in rig.steps if t > started], rig.starters[0].signals

    state, after, signals = run_rig(tmp_path / "rig", example(tmp_path, "test_job.config"), test)
    assert state == "Claimed/Busy" and after == [] and signals == []  # never suspended


def test_a_machine_that_is_no_desktop_ignores_its_keyboard(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await rig.run_job(nursery)
        started = trio.current_time()
        rig.inputs(KeyboardIdle=5)
        await trio.sleep_until(started + 600)
        return rig.state(), [n for t, n in rig.steps if t > started]

    state, after = run_rig(tmp_path / "rig", example(tmp_path, "desktop.config"), test)
    assert state == "Claimed/Busy" and after == []


def _local(epoch: float, weekday: int, hour: int) -> float:
    """The first local `hour`:00 on `weekday` (Monday is 0) after `epoch`."""
    t = time.localtime(epoch)
    days = (weekday - t.tm_wday) % 7 or 7
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday + days, hour, 0, 0, 0, 0, -1))


def test_the_time_of_day_policy_starts_nothing_in_work_hours(tmp_path):
    job = ClassAd({"ClusterId": 1, "ProcId": 0, "Owner": "u", "JobUniverse": 5})

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        seen = []
        await trio.sleep_until(0.5)  # between polls
        for hour in (7, 8, 10, 16, 17, 20):
            now = EPOCH + trio.current_time()
            rig.inputs(ClockOffset=int(_local(EPOCH, 2, hour) - now))  # a Wednesday
            # An idle startd looks every UPDATE_INTERVAL (300 s here): 5 minutes later.
            await trio.sleep(300)
            view = rig.driver.table.view(rig.slot())
            seen.append((hour, rig.state(), rig.driver.table.policy.holds("START", view, job)))
        return seen

    seen = run_rig(tmp_path / "rig", example(tmp_path, "time_of_day.config"), test)
    assert seen == [
        (7, "Unclaimed/Idle", True),
        (8, "Owner/Idle", False),  # 8:00 to 17:00: no job starts, and the slot is Owner's
        (10, "Owner/Idle", False),
        (16, "Owner/Idle", False),
        (17, "Unclaimed/Idle", True),
        (20, "Unclaimed/Idle", True),
    ]
