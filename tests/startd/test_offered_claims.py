"""Claims by the id a slot offers in its private ad, the negotiator having told the startd
nothing (HTCondor's default, NEGOTIATOR_INFORM_STARTD = False): the slot is claimed
directly (transition 5), a partitionable one carves a dynamic slot per claim, and a
claim may bring its first job, which starts at once on the same request. In-process, on
the startd's own code and trio's MockClock (`condorx.testing.startd_rig`)."""

from __future__ import annotations

from typing import Any

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.client.startd import Sent
from condorx.errors import Refused
from condorx.testing.startd_rig import FakeStarter, Rig, run_rig
from condorx.transport import wire
from condorx.transport.peer import Peer
from condorx.transport.protocol.startd import Claimed, ClaimSlot, Release, RunEnded, RunJob

PEER = Peer("u", "token", "127.0.0.1")
PARTITIONABLE = (
    "NUM_CPUS = 2\nMEMORY = 2048\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1 = 100%\n"
    "SLOT_TYPE_1_PARTITIONABLE = True\n"
)


class Frames:
    """The schedd's end of a request: each frame the startd sends, with its time."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, Any]] = []

    async def send(self, frame: Any) -> None:
        self.frames.append((trio.current_time(), frame))


def offered(rig: Rig) -> dict[str, str]:
    """Each slot's offered claim id, as its private ad says it."""
    return {ad["Name"]: ad["Capability"] for ad in rig.driver.table.private_ads()}


async def refusal(rig: Rig, req: ClaimSlot | RunJob) -> str:
    """How the startd refuses a claim or a run (the test fails if it takes it)."""
    handler = rig.claims.claim if isinstance(req, ClaimSlot) else rig.runs.run
    try:
        await handler(PEER, req, Frames())  # type: ignore[arg-type]
    except Refused as e:
        return f"{e.kind}: {e}"
    raise AssertionError(f"the {req.command} was taken")


def test_a_slot_is_claimed_by_the_id_it_offers_and_by_no_other(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await trio.sleep_until(2)
        name = rig.slot().name
        first = offered(rig)[name]
        wrong = await refusal(rig, ClaimSlot("not-offered", name, "u"))
        claimed = await rig.claims.claim(PEER, ClaimSlot(first, name, "u"), Frames())  # type: ignore[arg-type]
        state, private = rig.state(), offered(rig)
        await rig.claims.release(PEER, Release(first), None)  # type: ignore[arg-type]
        await rig.until(lambda: rig.state() == "Unclaimed/Idle")
        again = offered(rig)[name]
        spent = await refusal(rig, ClaimSlot(first, name, "u"))
        return wrong, claimed, state, private, first, again, spent, rig.steps

    wrong, claimed, state, private, first, again, spent, steps = run_rig(tmp_path, "", test)
    assert wrong.startswith("not-found")
    assert isinstance(claimed, Claimed) and claimed.claim_id == ""  # the offered id is its id
    assert state == "Claimed/Idle" and (2.0, 5) in steps and 6 not in [n for _, n in steps]
    assert private == {}  # a claimed static slot offers nothing
    assert again != first and spent.startswith("not-found")


def test_a_partitionable_slots_offer_carves_a_dynamic_slot_for_each_claim(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await trio.sleep_until(1)
        parent = rig.slot().name
        offer = offered(rig)[parent]
        one_cpu = {"cpus": 1, "memory": 512, "disk": 1}
        replies = [
            await rig.claims.claim(PEER, ClaimSlot(offer, parent, "u", request=one_cpu), Frames())  # type: ignore[arg-type]
            for _ in range(2)
        ]
        full = await refusal(rig, ClaimSlot(offer, parent, "u", request=one_cpu))
        slots = {
            s.name: (s.kind, s.state, s.claim.id if s.claim else None)
            for s in rig.driver.table.all_slots()
        }
        return parent, offer, replies, full, slots, offered(rig)

    parent, offer, replies, full, slots, after = run_rig(tmp_path, PARTITIONABLE, test)
    names = [r.slot for r in replies]
    ids = [r.claim_id for r in replies]
    assert names == [parent.replace("slot1@", "slot1_1@"), parent.replace("slot1@", "slot1_2@")]
    assert len(set(ids)) == 2 and offer not in ids and "" not in ids
    assert [slots[n] for n in names] == [("Dynamic", "Claimed", i) for i in ids]
    assert full.startswith("busy")  # both cpus are carved out
    assert after == {parent: offer}  # the partitionable slot's offer stands


def test_a_claim_that_brings_its_job_runs_it_at_once(tmp_path):
    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        await trio.sleep_until(3)
        name = rig.slot().name
        job = wire.pack_ad(ClassAd({"ClusterId": 7, "ProcId": 0, "Owner": "u"}))
        frames = Frames()
        ended: list[Any] = []

        async def claim_and_run() -> None:
            req = ClaimSlot(offered(rig)[name], name, "u", job=job)
            ended.append(await rig.claims.claim(PEER, req, frames))  # type: ignore[arg-type]

        nursery.start_soon(claim_and_run)
        await rig.until(lambda: len(frames.frames) == 2)
        busy = rig.state()
        await trio.sleep(10)
        rig.starters[0].finish()
        await rig.until(lambda: bool(ended))
        return frames.frames, busy, ended[0], rig.steps

    frames, busy, ended, steps = run_rig(tmp_path, "", test)
    (t_claimed, claimed), (t_started, started) = frames
    assert Claimed.from_wire(claimed["more"]["claimed"]).slot.startswith("slot1@")
    assert t_claimed == t_started == 3.0 and started["more"]["started"] == 4242
    assert busy == "Claimed/Busy" and isinstance(ended, RunEnded)
    assert [n for _, n in steps if _ >= 3.0][:2] == [5, 11]  # claimed directly, then busy


class Recording(FakeStarter):
    """A starter that keeps each job ad it is handed."""

    jobs: list[ClassAd] = []

    async def run(self, request: Any, job: ClassAd) -> Any:
        Recording.jobs.append(wire.ad_from_packed(request.job))
        assert job == Recording.jobs[-1]  # the ad it is handed is the one it is sent
        async for frame in super().run(request, job):
            yield frame


def test_a_claims_next_job_travels_as_its_changes_to_the_last(tmp_path):
    first = ClassAd({"ClusterId": 7, "ProcId": 0, "Owner": "u", "Args": "a", "Gone": 1})
    second = ClassAd({"ClusterId": 7, "ProcId": 1, "Owner": "u", "Args": "b"})
    for ad in (first, second):
        ad["Requirements"] = ExprTree("TARGET.Memory > ProcId")
    one, two = wire.pack_ad(first), wire.pack_ad(second)
    base, changed, removed = Sent(one).changes(Sent(two))

    async def test(rig: Rig, nursery: trio.Nursery) -> Any:
        Recording.jobs = []
        rig.next_starter = Recording
        name = rig.slot().name
        claim = offered(rig)[name]
        ended: list[Any] = []

        async def ask(handler: Any, req: Any) -> None:
            ended.append(await handler(PEER, req, Frames()))

        nursery.start_soon(ask, rig.claims.claim, ClaimSlot(claim, name, "u", job=one))
        await rig.until(lambda: len(Recording.jobs) == 1)
        rig.starters[0].finish()
        await rig.until(lambda: len(ended) == 1)
        wrong = await refusal(rig, RunJob(claim, changed, base="7.5", removed=removed))
        nursery.start_soon(ask, rig.runs.run, RunJob(claim, changed, base=base, removed=removed))
        await rig.until(lambda: len(Recording.jobs) == 2)
        rig.starters[0].finish()
        await rig.until(lambda: len(ended) == 2)
        return wrong, Recording.jobs

    wrong, jobs = run_rig(tmp_path, "", test)
    assert (base, sorted(removed)) == ("7.0", ["Gone"])
    assert sorted(wire.ad_from_packed(changed).keys()) == ["Args", "ProcId"]
    assert [str(j) for j in jobs] == [str(first), str(second)]
    assert wrong.startswith("bad-request")
