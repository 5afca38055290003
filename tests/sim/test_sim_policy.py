"""The simulator runs the startd's own code: its machines answer every startd request,
and a simulated job is suspended, continued and preempted by the startd's policy, and
preempted for a better match, at exact times (in-process, on trio's MockClock).

The simulated jobs' clock stops while they are suspended, as a stopped process's work
does: a job of 100 s suspended for 20 s ends at 120 s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio
import trio.testing

from condorx.classad import ClassAd
from condorx.daemons.startd.service import Startd
from condorx.language.config import Config, load_config
from condorx.sim.service import Simulator
from condorx.testing.startd_rig import EPOCH
from condorx.transport import wire
from condorx.transport.peer import Peer
from condorx.transport.protocol import table
from condorx.transport.protocol.startd import ClaimSlot, Match, RunEnded, RunJob

CONFIG = """\
LOCAL_DIR = {dir}
EXECUTE = $(LOCAL_DIR)/execute
LOG = $(LOCAL_DIR)/log
SIM_MACHINES = 2
NUM_CPUS = 2
MEMORY = 2048
SIM_JOB_DURATION = 100
POLLING_INTERVAL = 1
UPDATE_INTERVAL = 300
START = TRUE
STARTD_INPUTS_OVERRIDE = {dir}/inputs
"""

# Suspended while someone types, continued once they stop (the seed's desktop policy,
# short: KeyboardIdle from STARTD_INPUTS_OVERRIDE).
SUSPENDING = """
WANT_SUSPEND = True
SUSPEND = KeyboardIdle < 60
CONTINUE = KeyboardIdle > 60
PREEMPT = False
KILL = False
"""

PREEMPTING = """
START = KeyboardIdle > 60
WANT_SUSPEND = False
SUSPEND = False
PREEMPT = KeyboardIdle < 60
WANT_VACATE = True
KILL = False
"""


def config(root: Path, policy: str) -> Config:
    (root / "log").mkdir(exist_ok=True)
    (root / "config").write_text(CONFIG.format(dir=root) + policy)
    keyboard(root, 3600)
    return load_config(subsystem="SIM", path=root / "config", environ={})


def keyboard(root: Path, idle: int) -> None:
    """What STARTD_INPUTS_OVERRIDE says every simulated machine's keyboard is."""
    (root / "inputs").write_text(f"KeyboardIdle = {idle}\n")


class Recorder:
    """The schedd's end of a run call: each frame with its virtual time."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, Any]] = []

    async def send(self, frame: Any) -> None:
        self.frames.append((trio.current_time(), frame))

    def said(self, key: str) -> list[float]:
        return [t for t, f in self.frames if isinstance(f.get("more"), dict) and key in f["more"]]


class Run:
    def __init__(self) -> None:
        self.ch = Recorder()
        self.ended: RunEnded | None = None
        self.ended_at: float | None = None


class Pool:
    """The simulator's handlers, called as the negotiator and a schedd call them."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.handlers = sim.handlers()

    def slot(self, machine: int = 0, n: int = 0) -> Any:
        return self.sim.machines.startds[machine].table.all_slots()[n]

    async def ask(self, req: Any, user: str = "u", ch: Any = None) -> Any:
        peer = Peer(user, "token", "127.0.0.1")
        return await self.handlers[type(req)](peer, req, ch or Recorder())

    async def claim(self, slot: str, claim_id: str, user: str = "u", **match: Any) -> str:
        taken = await self.ask(Match(slot=slot, claim_id=claim_id, user=user, **match), user)
        await self.ask(ClaimSlot(claim_id=claim_id, slot=taken.slot, user=user), user)
        return str(taken.slot)

    def run(self, nursery: trio.Nursery, claim_id: str, job: dict[str, Any]) -> Run:
        run = Run()

        async def go() -> None:
            req = RunJob(claim_id, wire.pack_ad(ClassAd(job)))
            run.ended = await self.ask(req, str(job.get("Owner", "u")), run.ch)
            run.ended_at = trio.current_time()

        nursery.start_soon(go)
        return run


def simulate(root: Path, policy: str, test: Callable[[Pool, trio.Nursery], Awaitable[Any]]) -> Any:
    """`test` on a started simulator, in virtual time (0 is EPOCH on its machines)."""

    async def main() -> Any:
        sim = Simulator(config(root, policy), clock=lambda: EPOCH + trio.current_time())
        async with trio.open_nursery() as nursery:
            await sim.start(nursery)
            out = await test(Pool(sim), nursery)
            nursery.cancel_scope.cancel()
            return out

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


async def until(ready: Callable[[], bool]) -> float:
    with trio.fail_after(3600):
        while not ready():
            await trio.sleep(0.01)
    return trio.current_time()


def test_every_startd_request_has_a_simulator_path(tmp_path):
    sim = Simulator(config(tmp_path, ""))
    startd_requests = {c.request for c in table.COMMANDS["startd"]}
    assert set(sim.handlers()) == startd_requests
    assert set(Startd(config(tmp_path, "")).handlers()) == startd_requests


def test_a_suspended_simulated_job_stops_its_clock_until_the_policy_continues_it(tmp_path):
    async def test(pool: Pool, nursery: trio.Nursery) -> Any:
        slot = pool.slot().name
        await pool.claim(slot, "c1")
        run = pool.run(nursery, "c1", {"ClusterId": 1, "ProcId": 0, "Owner": "u"})
        await until(lambda: bool(run.ch.said("started")))
        await trio.sleep_until(10.5)
        keyboard(tmp_path, 5)  # the owner types: seen at the next poll (every 1 s)
        await until(lambda: pool.slot().activity == "Suspended")
        await trio.sleep_until(30.5)
        keyboard(tmp_path, 3600)
        await until(lambda: run.ended is not None)
        return run

    run = simulate(tmp_path, SUSPENDING, test)
    assert run.ch.said("started") == [0.0]
    assert run.ch.said("suspended") == [11.0]
    assert run.ch.said("continued") == [31.0]
    # 100 s of the job's work, and 20 s stopped.
    assert run.ended_at == 120.0
    assert run.ended.outcome == {"ExitBySignal": False, "ExitCode": 0, "RemoteUserCpu": 0.0}
    assert run.ended.wall == 120.0 and not run.ended.claim_ended


def test_the_policy_preempts_a_simulated_job_at_the_first_poll_after_the_owner_returns(
    tmp_path,
):
    async def test(pool: Pool, nursery: trio.Nursery) -> Any:
        slot = pool.slot().name
        await pool.claim(slot, "c1")
        run = pool.run(nursery, "c1", {"ClusterId": 1, "ProcId": 0, "Owner": "u"})
        await trio.sleep_until(10.5)
        keyboard(tmp_path, 5)
        await until(lambda: run.ended is not None)
        await until(lambda: pool.slot().state == "Owner")
        return run, pool.slot().claim

    run, claim = simulate(tmp_path, PREEMPTING, test)
    assert run.ended_at == 11.0
    assert run.ended.vacated and run.ended.claim_ended
    assert claim is None


def test_a_better_match_preempts_a_simulated_job_and_takes_its_slot(tmp_path):
    rank = 'RANK = TARGET.Owner == "boss"\nMAXJOBRETIREMENTTIME = 30\n'

    async def test(pool: Pool, nursery: trio.Nursery) -> Any:
        slot = pool.slot(1, 1).name  # the second machine's second slot
        await pool.claim(slot, "c1")
        old = pool.run(nursery, "c1", {"ClusterId": 1, "ProcId": 0, "Owner": "u"})
        await trio.sleep_until(20)
        await pool.ask(Match(slot=slot, claim_id="c2", user="boss", preempts="rank"), "boss")
        claimed = await pool.ask(ClaimSlot(claim_id="c2", slot=slot, user="boss"), "boss")
        claimed_at = trio.current_time()
        new = pool.run(nursery, "c2", {"ClusterId": 2, "ProcId": 0, "Owner": "boss"})
        await until(lambda: new.ended is not None)
        return old, claimed, claimed_at, new

    old, claimed, claimed_at, new = simulate(tmp_path, rank, test)
    # The old job retires until it has run MaxJobRetirementTime (30 s), and is vacated
    # at the poll after (the second of two machines polls half a second after the
    # first: at 30.5 s); the slot is then the better match's, and its job runs its whole
    # 100 s.
    assert old.ended.vacated and old.ended.claim_ended
    assert old.ended_at == claimed_at == 30.5
    assert claimed.slot.startswith("slot2@sim2.")
    assert new.ended.outcome["ExitCode"] == 0 and new.ended_at == claimed_at + 100


GPU_MACHINES = """
NUM_CPUS = 4
MEMORY = 4096
MACHINE_RESOURCE_GPUs = CUDA0, CUDA1
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_1 = 100%
SLOT_TYPE_1_PARTITIONABLE = True
"""


def test_a_simulated_machines_gpus_are_divided_among_its_dynamic_slots(tmp_path):
    async def test(pool: Pool, nursery: trio.Nursery) -> Any:
        parent = pool.slot(1).name  # the second machine's partitionable slot
        one_gpu = {"cpus": 1, "memory": 512, "disk": 1, "GPUs": 1}
        taken = [await pool.claim(parent, f"c{i}", request=one_gpu) for i in range(2)]
        refused = None
        try:
            await pool.ask(Match(slot=parent, claim_id="c3", user="u", request=one_gpu))
        except Exception as e:  # noqa: BLE001 - the refusal is what is checked
            refused = e
        no_gpu = await pool.claim(parent, "c4", request={"cpus": 1, "memory": 512})
        update = wire.ads_from_packed(wire.packed_array(pool.sim.machines.updates(True)[0]))
        ads = {ad["Name"]: ad for ad in update if ad["MyType"] == "Machine"}
        return taken, refused, no_gpu, ads

    taken, refused, no_gpu, ads = simulate(tmp_path, GPU_MACHINES, test)
    assert [ads[n]["AssignedGPUs"] for n in taken] == ["CUDA0", "CUDA1"]
    assert [ads[n]["GPUs"] for n in taken] == [1, 1]
    assert getattr(refused, "kind", None) == "busy"
    assert ads[no_gpu]["GPUs"] == 0 and ads[no_gpu]["AssignedGPUs"] == ""
    parent = ads[taken[0].replace("slot1_1", "slot1")]
    assert (parent["GPUs"], parent["TotalSlotGPUs"], parent["Cpus"]) == (0, 2, 1)


class SlowSchedd(Recorder):
    """A schedd that takes 10 s to read the run's first frame."""

    async def send(self, frame: Any) -> None:
        if not self.frames:
            await trio.sleep(10)
        await super().send(frame)


def test_a_simulated_job_works_on_while_its_frames_wait_for_the_schedd(tmp_path):
    async def test(pool: Pool, nursery: trio.Nursery) -> Any:
        await pool.claim(pool.slot().name, "c1")
        run = Run()
        run.ch = SlowSchedd()

        async def go() -> None:
            job = ClassAd({"ClusterId": 1, "ProcId": 0, "Owner": "u"})
            run.ended = await pool.ask(RunJob("c1", wire.pack_ad(job)), "u", run.ch)
            run.ended_at = trio.current_time()

        nursery.start_soon(go)
        await until(lambda: run.ended is not None)
        return run

    run = simulate(tmp_path, "", test)
    assert run.ch.said("started") == [10.0]
    assert run.ended_at == 100.0 and run.ended.wall == 100.0
