"""A job's start is one step, as in HTCondor's startd (which spawns the starter and goes
Busy together): while its starter is being spawned the slot is as good as Busy. A
preempting match that comes then waits for the job to be Busy, and preempts it as it
would a running job (13, 18, 23); it must not hand the Claimed/Idle slot to the new
claim under the job, which then started on the new claim's slot (10, 23, 11: "no new
job" for the schedd that preempted it). In-process, on trio's MockClock, with a starter
whose spawn the test lets finish (`condorx.testing.startd_rig`)."""

from __future__ import annotations

import signal
from typing import Any

import trio

from condorx.classad import ClassAd
from condorx.errors import Refused
from condorx.testing.startd_rig import FakeStarter, Rig, run_rig
from condorx.transport import wire
from condorx.transport.peer import Peer
from condorx.transport.protocol.startd import ClaimSlot, Match, RunJob

FETCHING = """
POLLING_INTERVAL = 1
STARTD_JOB_HOOK_KEYWORD = TEST
TEST_HOOK_FETCH_WORK = /usr/bin/false
RANK = TARGET.Important =?= True
MaxJobRetirementTime = 0
"""
FETCHED_JOB = 'Cmd = "/bin/sleep"\nOwner = "alice"\nClusterId = 1\nProcId = 0\n'
SCHEDD_JOB = ClassAd({"ClusterId": 2, "ProcId": 0, "Owner": "v", "Important": True})
PEER = Peer("v", "token", "127.0.0.1")


class Gate:
    """The rig's starters, each spawned only once the test opens the gate."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.asked = 0  # spawns asked for
        self.waiting = trio.Event()  # set when a spawn waits at the gate
        self.open = trio.Event()
        rig.runs.spawn = self.spawn

    async def spawn(self, log_file: str | None) -> FakeStarter:
        self.asked += 1
        self.waiting.set()
        await self.open.wait()
        starter = FakeStarter()
        self.rig.starters.append(starter)
        return starter


class Frames:
    def __init__(self) -> None:
        self.frames: list[Any] = []

    async def send(self, frame: Any) -> None:
        self.frames.append(frame)


async def preempt_and_run(rig: Rig, nursery: trio.Nursery, gate: Gate) -> tuple[Any, Frames]:
    """While the slot's job waits for its starter: a preempting match (rank) and its
    schedd's claim; then the starter is spawned, and the schedd runs its job on the claim
    once it has it. How the schedd's run went (the run's end, or its refusal) and its
    frames."""
    name = rig.slot().name
    await rig.claims.match(PEER, Match(name, "c5", user="v", preempts="rank"), None)  # type: ignore[arg-type]
    claimed: list[Any] = []
    outcome: list[Any] = []
    frames = Frames()

    async def claim() -> None:
        claimed.append(await rig.claims.claim(PEER, ClaimSlot("c5", name, "v"), None))  # type: ignore[arg-type]

    async def run() -> None:
        try:
            req = RunJob("c5", wire.pack_ad(SCHEDD_JOB))
            outcome.append(await rig.runs.run(PEER, req, frames))  # type: ignore[arg-type]
        except Refused as e:
            outcome.append(e)

    nursery.start_soon(claim)
    await trio.sleep(0.5)
    gate.open.set()
    await rig.until(lambda: bool(claimed))
    nursery.start_soon(run)
    await rig.until(lambda: bool(outcome) or bool(frames.frames))
    return (outcome[0] if outcome else None), frames


def test_fetched_work_whose_starter_is_spawning_is_preempted_once_it_runs(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        gate = Gate(rig)
        rig.work = [FETCHED_JOB]
        await gate.waiting.wait()  # the fetched work was accepted: its starter is spawned
        accepted = rig.state()
        steps_from = len(rig.steps)
        refused, frames = await preempt_and_run(rig, nursery, gate)
        fetched = rig.starters[0]
        return accepted, rig.numbers()[steps_from:], refused, frames.frames, fetched.signals

    accepted, steps, refused, frames, fetched_signals = run_rig(tmp_path, FETCHING, test)
    assert accepted == "Claimed/Idle"
    assert not isinstance(refused, Refused), refused
    assert frames and "started" in frames[0]["more"]  # the schedd's job runs on its claim
    # The fetched job started (11), then was preempted for the better match (13, 18, 23);
    # then the schedd's job (11). Not 10, 23 and the fetched job's 11 on the new claim.
    assert steps == [11, 13, 18, 23, 11]
    assert [(sig, why) for _, sig, why in fetched_signals][:1] == [(signal.SIGTERM, "evict")]


def test_a_schedd_job_whose_starter_is_spawning_is_preempted_once_it_runs(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        gate = Gate(rig)
        name = rig.slot().name
        await rig.claims.match(PEER, Match(name, "c0", user="u"), None)  # type: ignore[arg-type]
        await rig.claims.claim(PEER, ClaimSlot("c0", name, "u"), None)  # type: ignore[arg-type]
        first: list[Any] = []

        async def run_first() -> None:
            job = ClassAd({"ClusterId": 1, "ProcId": 0, "Owner": "u"})
            first.append(await rig.runs.run(PEER, RunJob("c0", wire.pack_ad(job)), Frames()))  # type: ignore[arg-type]

        nursery.start_soon(run_first)
        await gate.waiting.wait()
        steps_from = len(rig.steps)
        refused, frames = await preempt_and_run(rig, nursery, gate)
        await rig.until(lambda: bool(first))
        return rig.numbers()[steps_from:], refused, frames.frames, first[0]

    policy = "POLLING_INTERVAL = 1\nRANK = TARGET.Important =?= True\nMaxJobRetirementTime = 0\n"
    steps, refused, frames, first = run_rig(tmp_path, policy, test)
    assert not isinstance(refused, Refused), refused
    assert frames and "started" in frames[0]["more"]
    assert steps == [11, 13, 18, 23, 11]
    assert first.vacated and first.claim_ended  # the first job was evicted, its claim over


def test_a_claim_whose_fetched_job_is_starting_fetches_no_more_work(tmp_path):
    policy = FETCHING + 'FetchWorkDelay = ifThenElse(State == "Claimed", 0, 300)\n'

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        gate = Gate(rig)
        rig.work = [FETCHED_JOB, FETCHED_JOB]
        await gate.waiting.wait()
        await trio.sleep(5)  # five polls, a fetch allowed at each but for the start
        asked, fetches = gate.asked, list(rig.fetches)
        gate.open.set()
        await rig.until(lambda: rig.state() == "Claimed/Busy")
        return asked, fetches, len(rig.starters)

    asked, fetches, starters = run_rig(tmp_path, policy, test)
    assert fetches == [0.0] and asked == 1 and starters == 1
