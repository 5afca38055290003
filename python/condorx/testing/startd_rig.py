"""The startd's own code in-process, on trio's MockClock: its policy driver, claims and
runs, with a starter that runs no process, so that a timing rule of the policy (a poll,
MATCH_TIMEOUT, KILLING_TIMEOUT, a PREEMPT after n seconds suspended, CLAIM_WORKLIFE,
retirement) is tested at exact times without waiting for it.

    async def test(rig):          # inside trio.run(..., clock=MockClock(autojump_threshold=0))
        job = await rig.run_job()     # matched, claimed, and running on slot1
        rig.keyboard(5)               # the owner is back
        await rig.until(lambda: rig.state() == "Claimed/Suspended")

The machine's clock reads EPOCH at virtual time 0. The owner's keyboard comes from
STARTD_INPUTS_OVERRIDE, as in the real-process tests.
"""

from __future__ import annotations

import logging
import re
import signal
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
import trio.testing

from condorx.classad import ClassAd
from condorx.daemons.core import hooks
from condorx.daemons.startd.claims import Claims
from condorx.daemons.startd.driver import Driver
from condorx.daemons.startd.fetch import Fetcher
from condorx.daemons.startd.runs import Runs
from condorx.daemons.startd.slots import Slot
from condorx.language.config import Config, load_config
from condorx.transport import wire
from condorx.transport.peer import Peer
from condorx.transport.protocol.startd import ClaimSlot, Match, RunEnded, RunJob
from condorx.transport.protocol.starter import StartJob

EPOCH = 1_700_000_000.0

CONFIG = """\
LOCAL_DIR = {dir}
EXECUTE = $(LOCAL_DIR)/execute
LOG = $(LOCAL_DIR)/log
UPDATE_INTERVAL = 300
POLLING_INTERVAL = 5
NUM_CPUS = 1
RunBenchmarks = false
STARTD_INPUTS_OVERRIDE = {dir}/inputs
"""


@dataclass
class FakeStarter:
    """A claim's starter that runs no process: its job runs until a signal ends it. A
    SIGTERM ends it unless `ignores_term`; SIGKILL always does. Every signal is noted
    with its virtual time."""

    ignores_term: bool = False
    ignores_kill: bool = False  # a job that will not die: the startd kills its starter
    signals: list[tuple[float, int, str]] = field(default_factory=list)
    job_pid: int | None = None
    places: dict[str, str] = field(default_factory=dict)
    alive: bool = True
    killed_at: float | None = None  # when the starter itself was killed (KILLING_TIMEOUT)
    _ended: trio.Event = field(default_factory=trio.Event)
    _how: int | None = None

    @property
    def pid(self) -> int | None:
        return None

    async def run(self, request: StartJob, job: ClassAd) -> AsyncGenerator[dict[str, Any], None]:
        self._ended, self._how = trio.Event(), None  # each job of the claim runs anew
        self.job_pid = 4242
        yield {"started": self.job_pid}
        await self._ended.wait()
        self.job_pid = None
        if self._how == 0:
            yield {"done": {"outcome": {"ExitBySignal": False, "ExitCode": 0}}}
        else:
            yield {"done": {"outcome": {"ExitBySignal": True, "ExitSignal": self._how}}}

    def finish(self) -> None:
        """The job exits by itself, with status 0."""
        self._end(0)

    async def send_signal(self, sig: int, why: str = "") -> None:
        self.signals.append((trio.current_time(), int(sig), why))
        if (sig == signal.SIGKILL and not self.ignores_kill) or (
            sig == signal.SIGTERM and not self.ignores_term
        ):
            self._end(int(sig))

    def kill_job(self, sig: int = signal.SIGKILL) -> None:
        if not self.ignores_kill:
            self._end(int(sig))

    def kill(self) -> None:
        self.killed_at = trio.current_time()
        self._end(signal.SIGKILL)

    async def close(self) -> None:
        self.alive = False

    def _end(self, sig: int) -> None:
        if self._how is None:
            self._how = sig
        self._ended.set()


class Rig:
    """One startd's parts over a pool directory `root`, with `policy` appended to its
    configuration. `start` runs its poll loop in `nursery`."""

    def __init__(self, root: Path, policy: str = "", keyboard: int = 3600) -> None:
        self.root = root
        (root / "log").mkdir(parents=True, exist_ok=True)
        (root / "config").write_text(CONFIG.format(dir=root) + policy)
        self._inputs: dict[str, float] = {"NonCondorLoadAvg": 0}
        self.keyboard(keyboard)
        self.cfg: Config = load_config(subsystem="STARTD", path=root / "config", environ={})
        self.driver = Driver(self.cfg, clock=lambda: EPOCH + trio.current_time())
        self.starters: list[FakeStarter] = []
        self.next_starter = FakeStarter
        self.runs = Runs(self.driver, spawn=self._spawn)
        self.claims = Claims(self.driver, self.runs.run)
        # FETCH_WORK, answered by the test: the job ad text the next fetch prints ("" for
        # no work), and when each fetch ran.
        self.work: list[str] = []
        self.fetches: list[float] = []
        self.driver.fetcher = Fetcher(self.driver, self.runs.execute, run_hook=self._hook)
        # Each transition's virtual time and number, read from the StartLog's lines.
        self.steps: list[tuple[float, int]] = []
        self._log = _Transitions(self.steps)
        logger = logging.getLogger("condorx.startd")
        self._level = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(self._log)

    def close(self) -> None:
        logger = logging.getLogger("condorx.startd")
        logger.removeHandler(self._log)
        logger.setLevel(self._level)

    async def _hook(self, hook: hooks.Hook, args: Any = (), stdin: bytes = b"", *_: Any) -> Any:
        """A job hook that runs no process: FETCH_WORK prints the next of `work`."""
        if hook.name != "FETCH_WORK":
            return hooks.Result(0, b"", "")
        self.fetches.append(trio.current_time())
        text = self.work.pop(0) if self.work else ""
        return hooks.Result(0, text.encode(), "")

    async def _spawn(self, log_file: str | None) -> Any:
        starter = self.next_starter()
        self.starters.append(starter)
        return starter

    def keyboard(self, idle: int) -> None:
        self.inputs(KeyboardIdle=idle)

    def inputs(self, **values: float) -> None:
        """What STARTD_INPUTS_OVERRIDE says from now on (KeyboardIdle, NonCondorLoadAvg,
        ClockOffset), read at the next poll."""
        self._inputs.update(values)
        text = "".join(f"{k} = {v}\n" for k, v in self._inputs.items())
        (self.root / "inputs").write_text(text)

    async def start(self, nursery: trio.Nursery) -> None:
        self.driver.nursery = nursery
        await self.driver.poll()
        nursery.start_soon(self.driver.poll_loop)
        self.driver.fetcher.start(nursery)

    def slot(self) -> Slot:
        return self.driver.table.all_slots()[0]

    def state(self) -> str:
        s = self.slot()
        return f"{s.state}/{s.activity}"

    def numbers(self) -> list[int]:
        return [n for _, n in self.steps]

    def poke(self) -> None:
        """What changed (the keyboard) is seen at once, not at the next poll."""
        self.driver.wake_up()

    async def until(self, ready: Callable[[], bool], within: float = 3600) -> float:
        """Wait (virtual time) until `ready()`; the time it became so."""
        with trio.fail_after(within):
            while not ready():
                await trio.sleep(0.01)
        return trio.current_time()

    async def run_job(
        self, nursery: trio.Nursery, job: ClassAd | None = None, user: str = "u", idle: float = 0
    ) -> Running:
        """Match and claim the slot as a negotiator and a schedd would, then (`idle`
        seconds later) run `job` on it in `nursery`; returns the run (its frames, and its
        end once it ends)."""
        peer = Peer(user, "token", "127.0.0.1")
        slot = self.slot().name
        claim_id = f"claim-{len(self.starters)}"
        match = Match(slot=slot, claim_id=claim_id, user=user)
        await self.claims.match(peer, match, _NoChannel())  # type: ignore[arg-type]
        claim = ClaimSlot(claim_id=claim_id, slot=slot, user=user)
        await self.claims.claim(peer, claim, _NoChannel())  # type: ignore[arg-type]
        await trio.sleep(idle)
        job = job if job is not None else ClassAd({"ClusterId": 1, "ProcId": 0, "Owner": user})
        run = Running(claim_id, peer)
        nursery.start_soon(run.go, self.runs, job)
        await self.until(lambda: bool(run.frames))
        return run


class Running:
    """A job's run on a claim as the schedd sees it: the frames it is sent, and how the
    run ended."""

    def __init__(self, claim_id: str, peer: Peer) -> None:
        self.claim_id = claim_id
        self.peer = peer
        self.frames: list[tuple[float, Any]] = []
        self.ended: RunEnded | None = None
        self.ended_at: float | None = None

    async def go(self, runs: Runs, job: ClassAd) -> None:
        req = RunJob(self.claim_id, wire.pack_ad(job))
        self.ended = await runs.run(self.peer, req, _Recorder(self.frames))  # type: ignore[arg-type]
        self.ended_at = trio.current_time()


class _Recorder:
    def __init__(self, frames: list[tuple[float, Any]]) -> None:
        self.frames = frames

    async def send(self, frame: Any) -> None:
        self.frames.append((trio.current_time(), frame))


class _NoChannel:
    async def send(self, frame: Any) -> None:
        pass


class _Transitions(logging.Handler):
    """Notes each transition the startd logs, with its virtual time."""

    def __init__(self, steps: list[tuple[float, int]]) -> None:
        super().__init__(logging.INFO)
        self.steps = steps

    def emit(self, record: logging.LogRecord) -> None:
        found = re.search(r"\(transition (\d+):", record.getMessage())
        if found:
            self.steps.append((trio.current_time(), int(found.group(1))))


def run_rig(root: Path, policy: str, test: Callable[[Rig, trio.Nursery], Awaitable[Any]]) -> Any:
    """`test` on a started rig, in virtual time; what it returns."""

    async def main() -> Any:
        rig = Rig(root, policy)
        try:
            async with trio.open_nursery() as nursery:
                await rig.start(nursery)
                out = await test(rig, nursery)
                nursery.cancel_scope.cancel()
                return out
        finally:
            rig.close()

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
