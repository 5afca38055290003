"""The startd's policy driver: every slot moved through the policy state machine
(`states`), each poll (POLLING_INTERVAL while any slot is busy with Condor, else
UPDATE_INTERVAL) and whenever something the policy must see changes, with what each
transition asks of the job (signals to its starter, the claim ended or handed on,
backfill started or killed, benchmarks run). Each transition is logged in the StartLog
with its number and cause.

The request handlers (`claims`, `runs`, `drains`) and the fetch loops (`fetch`) change
slots only through `take` and `settle`.
"""

from __future__ import annotations

import logging
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.core import hooks, job_lease
from condorx.daemons.startd import machine as mach
from condorx.daemons.startd import states
from condorx.daemons.startd.backfill import BackfillClient, ClientSpec
from condorx.daemons.startd.draining import Drain
from condorx.daemons.startd.facts import PolicyFacts
from condorx.daemons.startd.fetch import Fetcher
from condorx.daemons.startd.policy import SlotView
from condorx.daemons.startd.scope import SlotScope
from condorx.daemons.startd.slots import Claim, Slot
from condorx.daemons.startd.starter_port import Starter
from condorx.daemons.startd.states import Action, Activity, State, Step, Why
from condorx.daemons.startd.table import CarveError, SlotTable
from condorx.errors import Refusal, Refused
from condorx.host import benchmarks
from condorx.language.config import Config
from condorx.transport import locate

log = logging.getLogger("condorx.startd")

# States in which the startd polls at POLLING_INTERVAL (something of Condor's is going on).
ACTIVE = (State.MATCHED, State.CLAIMED, State.PREEMPTING, State.BACKFILL)


class Driver:
    def __init__(
        self, cfg: Config, clock: Callable[[], float] = time.time, table: SlotTable | None = None
    ) -> None:
        """`clock` is the machine's (epoch seconds), a port: tests give a MockClock's.
        `table` is the machine's slots, else this host's as the configuration lays them
        out (the simulator gives each simulated machine's)."""
        self.cfg = cfg
        self.execute_dir = Path(locate.execute_dir(cfg))
        self.table = table or SlotTable(cfg, mach.detect(cfg, self.execute_dir), clock=clock)
        self.match_timeout = cfg.get_int("MATCH_TIMEOUT", 120)
        self.killing_timeout = cfg.get_int("KILLING_TIMEOUT", 30)
        self.heartbeat = cfg.get_float("STARTER_HEARTBEAT", job_lease.DEFAULT_HEARTBEAT)
        self.polling_interval = max(1, cfg.get_int("POLLING_INTERVAL", 5))
        self.stopping = ""  # the shutdown under way: graceful, fast or peaceful
        self.draining: Drain | None = None  # condor_drain's request, while it stands
        self.benchmarking = False
        self.stepped = trio.Event()  # set (and replaced) at every transition
        self.wake = trio.Event()
        # Each claim's starter process, by claim id.
        self.starters: dict[str, Starter] = {}
        self.backfill = BackfillClient(ClientSpec.from_config(cfg), self.wake_up)
        # Ports the startd connects: the advertiser's poke, what runs after each poll
        # (a drain's progress), and the fetch loops (which run jobs through `runs`).
        self.touched: Callable[[Slot | None], None] = lambda slot: None
        self.after_poll: list[Callable[[], Awaitable[None]]] = []
        self.fetcher: Fetcher
        self._between_polls = trio.CancelScope()  # the poll loop's wait for its next poll

    nursery: trio.Nursery

    def wake_up(self) -> None:
        """Poll now (something changed that the policy must see)."""
        self.wake.set()

    def now(self) -> float:
        return self.table.now()

    def touch(self, slot: Slot | None = None) -> None:
        """Something advertised changed (of `slot`, else of the whole machine): the
        collector hears of it soon."""
        self.touched(slot)

    # -- the state machine ----------------------------------------------------------------

    def facts(self, slot: Slot, ad: SlotView) -> PolicyFacts:
        """What the slot's policy says now, each fact evaluated when the rules ask."""
        return PolicyFacts(self, slot, ad)

    def worklife_over(self, claim: Claim | None, ad: SlotView) -> bool:
        """The claim has accepted jobs for longer than CLAIM_WORKLIFE (-1: forever). As
        HTCondor's claimWorklifeExpired, not before its first job: with 0, that job runs,
        and the claim takes no other."""
        if claim is None or not claim.claimed or claim.activations == 0:
            return False
        worklife = self.table.policy.number("CLAIM_WORKLIFE", ad)
        return worklife is not None and worklife >= 0 and self.now() - claim.claimed_at > worklife

    async def settle(self, slot: Slot, view: ClassAd | SlotScope | None = None) -> None:
        """Take every transition the slot's policy calls for now, one after another;
        `view` is the slot's as it stands (or its scope), when the caller has it."""
        for _ in range(16):  # the longest chain is a handful; never loop forever
            if (
                slot.kind == "Dynamic"
                and slot.parent is not None
                and slot not in slot.parent.children
            ):
                return  # a dynamic slot whose claim ended is gone
            if slot.flags.starting:
                # Its job is starting: taken up once it is Busy (`started`), as in
                # HTCondor, whose startd spawns the starter and goes Busy in one step.
                slot.flags.deferred = True
                return
            slot.flags.backfill_running = self.backfill.uses(slot.name)
            scope = view if isinstance(view, SlotScope) else self.table.scope(slot, view)
            facts = self.facts(slot, scope)
            view = None  # a transition changes what the slot's ad says
            step = states.next_step(slot.state, slot.activity, facts, slot.flags)
            if step is None:
                return
            await self.take(slot, step)

    def started(self, slot: Slot) -> None:
        """The start of the slot's job is over (it is Busy, or it failed to start):
        what the policy was asked meanwhile (a preempting match, a release) is taken now."""
        flags = slot.flags
        if flags.deferred:
            self.wake_up()
        flags.starting = flags.deferred = False

    async def take(self, slot: Slot, step: Step) -> None:
        """Make one transition, and do what it asks of the job."""
        if step.state == State.PREEMPTING and slot.state == State.CLAIMED:
            self._evicting(slot)
        if step.state in ACTIVE and slot.state not in ACTIVE:
            # The next poll comes POLLING_INTERVAL from now, not at the end of an idle
            # wait of UPDATE_INTERVAL: a match must lapse within MATCH_TIMEOUT.
            soon = trio.current_time() + self.polling_interval
            self._between_polls.deadline = min(self._between_polls.deadline, soon)
        now = self.table.apply(slot, step)
        self.touch(slot)
        if step.action is not None:
            await self._act(slot, step, now)
        self.stepped.set()  # wake whoever waits for a slot to move on
        self.stepped = trio.Event()

    async def next_step(self, longest: float = 0.5) -> None:
        """Until some slot takes a transition; at most `longest` seconds, for the changes
        that come by no transition (a match that lapses)."""
        with trio.move_on_after(longest):
            await self.stepped.wait()

    async def _act(self, slot: Slot, step: Step, now: float) -> None:
        claim = slot.claim
        if step.action == Action.SUSPEND:
            await self.signal(slot, signal.SIGSTOP)
            await self._notify(slot, {"suspended": int(now)})
        elif step.action == Action.CONTINUE:
            await self.signal(slot, signal.SIGCONT)
            await self._notify(slot, {"continued": int(now)})
        elif step.action == Action.VACATE and claim is not None and claim.job is not None:
            claim.evicted = claim.evicted or step.cause
            await self.signal(slot, signal.SIGTERM, "evict")
            await self.signal(slot, signal.SIGCONT)  # a suspended job must wake to hear it
        elif step.action == Action.KILL and claim is not None and claim.job is not None:
            claim.evicted = claim.evicted or step.cause
            slot.killing_since = now
            await self.signal(slot, signal.SIGKILL, "evict")
        elif step.action == Action.END_CLAIM:
            self.end_claim(slot)
        elif step.action == Action.NEXT_CLAIM:
            self._next_claim(slot)
        elif step.action == Action.BACKFILL_START:
            await self.backfill.join(slot.name, self.nursery)
        elif step.action == Action.BACKFILL_KILL and self.backfill.leave(slot.name):
            self.nursery.start_soon(self.backfill.stop, float(self.killing_timeout))
        elif step.action == Action.BENCHMARK and not self.benchmarking:
            self.benchmarking = True
            self.nursery.start_soon(self._run_benchmarks)

    async def signal(self, slot: Slot, sig: int, why: str = "") -> None:
        starter = self.starters.get(slot.claim.id) if slot.claim is not None else None
        if starter is not None and slot.claim is not None and slot.claim.job is not None:
            await starter.send_signal(sig, why)

    def _evicting(self, slot: Slot) -> None:
        """A claim of fetched work is being evicted: its EVICT_CLAIM hook hears of it
        (advisory: not waited for)."""
        claim = slot.claim
        if claim is None or not claim.fetched:
            return
        hook = self.fetcher.hooks_of(claim.fetched).get("EVICT_CLAIM")
        job = claim.job or claim.last_job
        if hook is not None and job is not None:
            stdin = hooks.ads_text(job, self.table.view(slot))
            self.nursery.start_soon(hooks.run, hook, (), stdin)

    async def _notify(self, slot: Slot, frame: dict[str, Any]) -> None:
        """Tell the schedd whose job runs on the slot (on its open run call)."""
        ch = slot.claim.notify if slot.claim is not None else None
        if ch is not None:
            try:
                await ch.send({"more": frame})
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass  # the run is ending; its final reply tells the rest

    def end_claim(self, slot: Slot) -> None:
        """The slot's claim is over (a dynamic slot goes with it, its resources back in
        its partitionable slot)."""
        claim = slot.claim
        slot.claim = slot.next_claim = None
        slot.flags = states.Flags()
        if claim is not None:
            starter = self.starters.pop(claim.id, None)
            if starter is not None:
                self.nursery.start_soon(starter.close)
        if slot.kind == "Dynamic" and slot.parent is not None and slot in slot.parent.children:
            slot.parent.children.remove(slot)
        self.touch(slot)

    def _next_claim(self, slot: Slot) -> None:
        """The preempted claim is over: the slot is now the preempting match's."""
        old, nxt, slot.next_claim = slot.claim, slot.next_claim, None
        self.table.set_claim(slot, nxt)
        slot.flags = states.Flags()
        if slot.claim is not None:
            slot.claim.claimed_at = self.now()  # its CLAIM_WORKLIFE starts with the slot
            job, slot.claim.pending_job = slot.claim.pending_job, None
            if job is not None:  # fetched work that preempted the old claim
                self.fetcher.begin(slot, slot.claim, job)
        if old is not None:
            starter = self.starters.pop(old.id, None)
            if starter is not None:
                self.nursery.start_soon(starter.close)
        self.touch(slot)

    async def _run_benchmarks(self) -> None:
        """One run of the benchmarks for the whole machine; every slot waiting in
        Benchmarking returns to Idle (4) when it is done."""
        try:
            mips = await trio.to_thread.run_sync(benchmarks.mips)
            kflops = await trio.to_thread.run_sync(benchmarks.kflops)
            self.table.benchmarks = {
                "Mips": int(mips),
                "KFlops": int(kflops),
                "LastBenchmark": int(self.now()),
            }
            log.info("benchmarks: Mips %d, KFlops %d", int(mips), int(kflops))
        finally:
            self.benchmarking = False
        for s in self.table.all_slots():
            if s.activity == Activity.BENCHMARKING:
                s.flags.benchmarks_done = True
                await self.settle(s)

    # -- polling ----------------------------------------------------------------------------

    async def poll(self) -> None:
        """Read the machine, then move every slot as its policy says."""
        self.table.read(self._job_pids())
        for slot in self.table.all_slots():
            self._drop_unclaimed_preemption(slot)
            # One view of the slot (if its policy needs one) for its CPUBusy and its
            # policy, unless CpuBusyTime changes between them.
            scope = self.table.scope(slot)
            changed = self._note_cpu_busy(slot, scope)
            await self.settle(slot, scope if not changed else None)
            await self._enforce_killing_timeout(slot)
        for then in self.after_poll:
            await then()

    async def poll_loop(self) -> None:
        while True:
            try:
                await self.poll()
            except Exception:
                # A policy that cannot be evaluated must not stop the startd.
                log.exception("policy evaluation failed")
            active = any(s.state in ACTIVE for s in self.table.all_slots())
            wait = self.polling_interval if active else self.table.update_interval
            with trio.move_on_after(wait) as self._between_polls:
                await self.wake.wait()
            self.wake = trio.Event()

    async def give_up_claims(
        self, why: Why, cause: str, fast: bool, no_retirement: bool = False
    ) -> None:
        """Every slot lets its work go (a shutdown, a drain): a match not yet claimed at
        once (8), a claim's job by retiring, or vacated at once (`no_retirement`), or
        killed (`fast`), as the state machine then takes it."""
        for slot in self.table.all_slots():
            if slot.state == State.MATCHED:
                await self.take(slot, states.match_given_up(cause))
            elif slot.claim is not None or slot.state == State.BACKFILL:
                slot.flags.vacate_requested = why
                slot.flags.fast = fast
                slot.flags.no_retirement = no_retirement

    def _drop_unclaimed_preemption(self, slot: Slot) -> None:
        """A preempting match its schedd never claimed lapses after MATCH_TIMEOUT; a claim
        retiring for it alone goes back to Busy (19)."""
        nxt = slot.next_claim
        if nxt is None or nxt.claimed or self.now() < nxt.matched_at + self.match_timeout:
            return
        log.info("%s: the preempting match was not claimed within MATCH_TIMEOUT", slot.name)
        slot.next_claim = None
        if slot.flags.retiring_for is Why.BETTER_MATCH:
            slot.flags.better_match_gone = True
        if slot.flags.vacate_requested is Why.BETTER_MATCH:
            slot.flags.vacate_requested = None
        if slot.flags.preempting_for is Why.BETTER_MATCH:
            # Too late to undo: the old job is being vacated, and the slot has no claim
            # to go to once it is gone (22 or 25, not 23 or 24).
            slot.flags.preempting_for = Why.RELEASED

    def _note_cpu_busy(self, slot: Slot, view: SlotView) -> bool:
        """CpuBusyTime: how long the configured CPUBusy expression has been true;
        whether it started or stopped being true."""
        busy = self.table.policy.holds("CPUBusy", view)
        before = slot.cpu_busy_since
        if not busy:
            slot.cpu_busy_since = None
        elif slot.cpu_busy_since is None:
            slot.cpu_busy_since = self.now()
        return slot.cpu_busy_since != before

    async def _enforce_killing_timeout(self, slot: Slot) -> None:
        """Killing for longer than KILLING_TIMEOUT: the starter itself is hard-killed."""
        if slot.activity != Activity.KILLING or slot.claim is None or slot.claim.job is None:
            return
        if self.now() - slot.killing_since < self.killing_timeout:
            return
        starter = self.starters.pop(slot.claim.id, None)
        if starter is not None:
            log.warning("%s: still killing after KILLING_TIMEOUT; killing the starter", slot.name)
            starter.kill()
            self.nursery.start_soon(starter.close)

    # -- for the request handlers -----------------------------------------------------------

    def slot_named(self, name: Any) -> Slot:
        slot = self.table.named(name)
        if slot is None:
            raise Refused(Refusal.NOT_FOUND, f"no slot {name!r} here")
        return slot

    def claimed_slot(self, claim_id: Any) -> Slot:
        slot = self.table.claimed_by(claim_id)
        if slot is None:
            raise Refused(Refusal.NOT_FOUND, "unknown claim")
        return slot

    def carve(self, parent: Slot, request: dict[str, Any]) -> Slot:
        try:
            return self.table.carve(parent, request)
        except CarveError as e:
            raise Refused(Refusal(e.kind), str(e)) from None

    def _job_pids(self) -> dict[str, int]:
        """The pid of each slot's job, by slot name: only starters' with a pid are looked
        at (a simulated job has none), not every slot."""
        pids: dict[str, int] = {}
        for claim_id, starter in self.starters.items():
            pid = starter.job_pid
            if pid:
                slot = self.table.claimed_by(claim_id)
                if slot is not None:
                    pids[slot.name] = pid
        return pids

    def taking_work(self, slot: Slot | None = None) -> None:
        """Refuse new work while shutting down or draining; a drain with a START of its
        own (condor_drain -start) lets a Drained `slot` be claimed, and its claims run."""
        if self.stopping:
            raise Refused(Refusal.BUSY, f"the startd is shutting down ({self.stopping})")
        if self.draining is None:
            return
        if slot is not None and self.draining.takes_jobs():
            claim = slot.claim
            if slot.state == State.DRAINED or (claim is not None and claim.while_draining):
                return
        raise Refused(Refusal.BUSY, "the startd is draining")

    def admits_while_draining(self, slot: Slot, job: ClassAd) -> None:
        """A claim a drain's START let in runs only a job that START accepts (the
        negotiator may have matched the slot by an ad from before the drain)."""
        claim, drain = slot.claim, self.draining
        if claim is None or not claim.while_draining or drain is None or drain.start is None:
            return
        if ExprTree(drain.start).eval(self.table.view(slot), job) is not True:
            raise Refused(Refusal.BUSY, f"{slot.name} is draining: its START refuses the job")

    async def shutdown(self, mode: str) -> None:
        """Give up every claim the way `mode` says, then return (the startd exits)."""
        self.stopping = mode
        log.info("shutting down (%s)", mode)
        await self.give_up_claims(Why.SHUTDOWN, "the startd is shutting down", mode == "fast")
        while any(s.claim is not None for s in self.table.all_slots()) or self.backfill.running:
            await self.poll()
            with trio.move_on_after(0.5):
                await self.wake.wait()
            self.wake = trio.Event()
        log.info("shut down (%s): no claim is left", mode)
