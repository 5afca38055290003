"""The startd: advertises its slots, moves each through the policy state machine
(`states`), accepts matches and claims, and runs jobs through a starter process per claim.

Commands from the pool's own daemons:
- `match` (negotiator): reserve a slot for a claim id (transition 6); it lapses after
  MATCH_TIMEOUT (8).
- `claim` (schedd): take up a matched claim (9).
- `run` (schedd): run a job on a claim (11). The reply streams `{"more": ...}` frames
  (`started`, an `alive` heartbeat (`condorx.job_lease`), and `suspended` or
  `continued` when the policy pauses the job) and ends with how the job ended, or with
  `vacated` when the startd took it off (with `claim_ended` when the claim is over). The
  open connection is the job's lease: if the startd dies, the schedd sees it at once.
- `deactivate` (schedd): stop the job on a claim; `suspend`/`continue` (condor_suspend);
  `release` (schedd): give the claim up.
And from an administrator: `vacate` (condor_vacate; `fast` skips retirement and vacating).

Every poll (POLLING_INTERVAL while any slot is busy with Condor, else UPDATE_INTERVAL)
evaluates each slot's policy and takes the transitions it calls for; each one is logged
in the StartLog with its number and cause.

Shutting down (manual 3.5.8.4): SIGTERM is graceful (every claim retires, its job given
MaxJobRetirementTime, then vacated); SIGQUIT is fast (no retirement, jobs killed at once);
SIGUSR1 is peaceful (retirement without end: running jobs finish, nothing is killed). The
startd takes no new work meanwhile, and exits once no claim is left.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
from dataclasses import replace
from typing import Any

import trio

from condorx import hooks, job_lease, locate, security, wire
from condorx._core import benchmark_kflops, benchmark_mips
from condorx.cedar import startd as cedar_startd
from condorx.classad import ClassAd, ExprTree
from condorx.client.collector import CollectorClient
from condorx.client.connection import daemon_credentials
from condorx.config import Config
from condorx.daemons import batch
from condorx.daemons.advertiser import Advertiser
from condorx.daemons.run import DAEMON_NO_RESTART
from condorx.daemons.server import Handler, Peer, Server
from condorx.daemons.startd import draining, peek, runas, starter_forks, states
from condorx.daemons.startd import machine as mach
from condorx.daemons.startd.backfill import BackfillClient, ClientSpec
from condorx.daemons.startd.draining import Drain
from condorx.daemons.startd.fetch import Fetcher
from condorx.daemons.startd.slots import Claim, Slot
from condorx.daemons.startd.starter_process import StarterProcess
from condorx.daemons.startd.states import Facts, Step, Why
from condorx.daemons.startd.table import CarveError, SlotTable
from condorx.errors import Refused
from condorx.protocol.message import Done, Each, Message
from condorx.protocol.startd import (
    CancelDrain,
    Claimed,
    ClaimSlot,
    Continue,
    Deactivate,
    Deactivated,
    DrainJobs,
    DrainStarted,
    Match,
    Matches,
    MatchTaken,
    Peek,
    Peeked,
    QuerySlots,
    Release,
    RunEnded,
    RunJob,
    SlotAds,
    Suspend,
    Vacate,
    Vacated,
)
from condorx.protocol.starter import StartJob

log = logging.getLogger("condorx.startd")

# A fetched job starting on its claim (transition 11, with no schedd).
ACTIVATED_FETCHED = Step(11, "Claimed", "Busy", "a fetched job started")

# The startd stops in its own ways on these signals (see `serve`).
HANDLES_SIGNALS = True
SHUTDOWN_SIGNALS = {
    signal.SIGTERM: "graceful",
    signal.SIGINT: "graceful",
    signal.SIGQUIT: "fast",
    signal.SIGUSR1: "peaceful",
}

# The policy expressions other expressions may refer to by name.
EXPRESSIONS = ("WANT_SUSPEND", "SUSPEND", "CONTINUE", "PREEMPT", "WANT_VACATE", "KILL")

# States in which the startd polls at POLLING_INTERVAL (something of Condor's is going on).
ACTIVE = ("Matched", "Claimed", "Preempting", "Backfill")


class Startd:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.execute_dir = locate.execute_dir(cfg)
        self.table = SlotTable(cfg, mach.detect(cfg, self.execute_dir))
        self.match_timeout = cfg.get_int("MATCH_TIMEOUT", 120)
        self.killing_timeout = cfg.get_int("KILLING_TIMEOUT", 30)
        self.heartbeat = cfg.get_float("STARTER_HEARTBEAT", job_lease.DEFAULT_HEARTBEAT)
        self.polling_interval = max(1, cfg.get_int("POLLING_INTERVAL", 5))
        self.stopping = ""  # the shutdown under way: graceful, fast or peaceful
        self.draining: Drain | None = None  # condor_drain's request, while it stands
        # A stop asked for from inside (a drain that ends in exit), as a signal would.
        self.stop_requested = trio.Event()
        self.stop_mode = "graceful"
        self.exit_status = 0
        self.benchmarking = False
        self.collector = CollectorClient(cfg, daemon_credentials(cfg))
        self.advertiser = Advertiser(self.collector, self.ads, self.table.update_interval)
        self.stepped = trio.Event()  # set (and replaced) at every transition
        self.wake = trio.Event()
        self.starters: dict[str, StarterProcess] = {}
        self.backfill = BackfillClient(ClientSpec.from_config(cfg), self.wake_up)
        self.fetcher = Fetcher(self)
        self.starter_log = cfg.get("STARTER_LOG")
        self.starter_hooks: dict[str, list[Any]] = {}
        self.updates = [
            cfg.get_int("STARTER_INITIAL_UPDATE_INTERVAL", 8),
            cfg.get_int("STARTER_UPDATE_INTERVAL", 300),
        ]

    def wake_up(self) -> None:
        """Poll now (something changed that the policy must see)."""
        self.wake.set()

    def now(self) -> float:
        return self.table.now()

    # -- the state machine ----------------------------------------------------------------

    def facts(self, slot: Slot, ad: ClassAd) -> Facts:
        p = self.table.policy
        claim = slot.claim
        job = claim.job if claim is not None else None
        now = self.now()
        flags = slot.flags
        busy = slot.state in ("Claimed", "Preempting") and job is not None
        run_time = slot.totals(now).get("TotalJobRunTime", 0)
        return Facts(
            is_owner=p.holds("IS_OWNER", ad),
            start_false=p.is_false("START", ad),
            run_benchmarks=slot.state == "Unclaimed" and p.holds("RunBenchmarks", ad),
            want_suspend=busy and p.holds("WANT_SUSPEND", ad, job),
            suspend=busy and p.holds("SUSPEND", ad, job),
            resume=busy and p.holds("CONTINUE", ad, job),
            preempt=busy and p.holds("PREEMPT", ad, job),
            want_vacate=not flags.fast and (job is None or p.holds("WANT_VACATE", ad, job)),
            kill=flags.fast or (busy and p.holds("KILL", ad, job)),
            retirement_over=flags.fast
            or flags.no_retirement
            or (busy and self.stopping != "peaceful" and run_time >= p.retirement_time(ad, job)),
            match_expired=claim is not None
            and not claim.claimed
            and now >= claim.matched_at + self.match_timeout,
            backfill_enabled=self.backfill.enabled,
            start_backfill=slot.state in ("Unclaimed", "Backfill")
            and not self.backfill.killed_for  # a new client once the dying one is gone
            and p.holds("START_BACKFILL", ad),
            evict_backfill=slot.state == "Backfill" and p.holds("EVICT_BACKFILL", ad),
            worklife_over=self._worklife_over(claim, ad),
            draining=self.draining is not None,
        )

    def _worklife_over(self, claim: Claim | None, ad: ClassAd) -> bool:
        """The claim has accepted jobs for longer than CLAIM_WORKLIFE (-1: forever)."""
        if claim is None or not claim.claimed:
            return False
        worklife = self.table.policy.number("CLAIM_WORKLIFE", ad)
        return worklife is not None and worklife >= 0 and self.now() - claim.claimed_at > worklife

    async def settle(self, slot: Slot) -> None:
        """Take every transition the slot's policy calls for now, one after another."""
        for _ in range(16):  # the longest chain is a handful; never loop forever
            if (
                slot.kind == "Dynamic"
                and slot.parent is not None
                and slot not in slot.parent.children
            ):
                return  # a dynamic slot whose claim ended is gone
            slot.flags.backfill_running = self.backfill.uses(slot.name)
            facts = self.facts(slot, self.table.view(slot))
            step = states.next_step(slot.state, slot.activity, facts, slot.flags)
            if step is None:
                return
            await self.take(slot, step)

    async def take(self, slot: Slot, step: Step) -> None:
        """Make one transition, and do what it asks of the job."""
        if step.state == "Preempting" and slot.state == "Claimed":
            self._evicting(slot)
        now = self.table.apply(slot, step)
        self._touch()
        if step.action is not None:
            await self._act(slot, step, now)
        self.stepped.set()  # wake whoever waits for a slot to move on
        self.stepped = trio.Event()

    async def _next_step(self, longest: float = 0.5) -> None:
        """Until some slot takes a transition; at most `longest` seconds, for the changes
        that come by no transition (a match that lapses)."""
        with trio.move_on_after(longest):
            await self.stepped.wait()

    async def _act(self, slot: Slot, step: Step, now: float) -> None:
        claim = slot.claim
        if step.action == "suspend":
            await self._signal(slot, signal.SIGSTOP)
            await self._notify(slot, {"suspended": int(now)})
        elif step.action == "continue":
            await self._signal(slot, signal.SIGCONT)
            await self._notify(slot, {"continued": int(now)})
        elif step.action == "vacate" and claim is not None and claim.job is not None:
            claim.evicted = claim.evicted or step.cause
            await self._signal(slot, signal.SIGTERM, "evict")
            await self._signal(slot, signal.SIGCONT)  # a suspended job must wake to hear it
        elif step.action == "kill" and claim is not None and claim.job is not None:
            claim.evicted = claim.evicted or step.cause
            slot.killing_since = now
            await self._signal(slot, signal.SIGKILL, "evict")
        elif step.action == "end-claim":
            self._end_claim(slot)
        elif step.action == "next-claim":
            self._next_claim(slot)
        elif step.action == "backfill-start":
            await self.backfill.join(slot.name, self.nursery)
        elif step.action == "backfill-kill" and self.backfill.leave(slot.name):
            self.nursery.start_soon(self.backfill.stop, float(self.killing_timeout))
        elif step.action == "benchmark" and not self.benchmarking:
            self.benchmarking = True
            self.nursery.start_soon(self._run_benchmarks)

    async def _signal(self, slot: Slot, sig: int, why: str = "") -> None:
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

    def _end_claim(self, slot: Slot) -> None:
        claim = slot.claim
        slot.claim = slot.next_claim = None
        slot.flags = states.Flags()
        if claim is not None:
            starter = self.starters.pop(claim.id, None)
            if starter is not None:
                self.nursery.start_soon(starter.close)
        if slot.kind == "Dynamic" and slot.parent is not None and slot in slot.parent.children:
            slot.parent.children.remove(slot)
        self._touch()

    def _next_claim(self, slot: Slot) -> None:
        """The preempted claim is over: the slot is now the preempting match's."""
        old, slot.claim, slot.next_claim = slot.claim, slot.next_claim, None
        slot.flags = states.Flags()
        if slot.claim is not None:
            slot.claim.claimed_at = self.now()  # its CLAIM_WORKLIFE starts with the slot
            job, slot.claim.pending_job = slot.claim.pending_job, None
            if job is not None:  # fetched work that preempted the old claim
                self.nursery.start_soon(self.fetcher.run, slot, slot.claim, job)
        if old is not None:
            starter = self.starters.pop(old.id, None)
            if starter is not None:
                self.nursery.start_soon(starter.close)
        self._touch()

    async def _run_benchmarks(self) -> None:
        """One run of the benchmarks for the whole machine; every slot waiting in
        Benchmarking returns to Idle (4) when it is done."""
        try:
            mips = await trio.to_thread.run_sync(benchmark_mips)
            kflops = await trio.to_thread.run_sync(benchmark_kflops)
            self.table.benchmarks = {
                "Mips": int(mips),
                "KFlops": int(kflops),
                "LastBenchmark": int(self.now()),
            }
            log.info("benchmarks: Mips %d, KFlops %d", int(mips), int(kflops))
        finally:
            self.benchmarking = False
        for s in self.table.all_slots():
            if s.activity == "Benchmarking":
                s.flags.benchmarks_done = True
                await self.settle(s)

    async def poll(self) -> None:
        """Read the machine, then move every slot as its policy says."""
        self.table.read([self._job_pid(s) for s in self.table.all_slots()])
        for slot in self.table.all_slots():
            self._note_cpu_busy(slot)
            self._drop_unclaimed_preemption(slot)
            await self.settle(slot)
            await self._enforce_killing_timeout(slot)
        await self._drain_progress()

    # -- draining -------------------------------------------------------------------------

    async def drain(self, peer: Peer, req: DrainJobs, ch: wire.Channel) -> DrainStarted:
        """condor_drain: every slot takes no new work and its job leaves as asked."""
        if self.draining is not None:
            raise draining.refused(draining.ALREADY, "Draining already in progress.")
        if req.check:
            self._check_drain(req.check)
        drain = Drain.asked(req.how, req.on_completion, req.reason or f"by {peer.user}", self.now())
        self.draining = drain
        self.table.drain_attrs = drain.ad()
        log.info("draining (%s, then %s): %s", drain.how, drain.on_completion, drain.reason)
        await self._give_up_claims(
            Why.DRAIN, "the startd is draining", drain.how == "fast", drain.how == "quick"
        )
        for slot in self.table.all_slots():
            await self.settle(slot)
        await self._drain_progress()
        self._touch()
        return DrainStarted(drain.request_id)

    async def _give_up_claims(
        self, why: Why, cause: str, fast: bool, no_retirement: bool = False
    ) -> None:
        """Every slot lets its work go (a shutdown, a drain): a match not yet claimed at
        once (8), a claim's job by retiring, or vacated at once (`no_retirement`), or
        killed (`fast`), as the state machine then takes it."""
        for slot in self.table.all_slots():
            if slot.state == "Matched":
                await self.take(slot, Step(8, "Owner", "Idle", cause, "end-claim"))
            elif slot.claim is not None or slot.state == "Backfill":
                slot.flags.vacate_requested = why
                slot.flags.fast = fast
                slot.flags.no_retirement = no_retirement

    def _check_drain(self, text: str) -> None:
        try:
            check = ExprTree(text)
        except ValueError as e:
            raise Refused("bad-request", f"drain: -check {text!r}: {e}") from None
        for slot in self.table.all_slots():
            value = check.eval(self.table.view(slot))
            if not isinstance(value, bool):
                raise draining.refused(
                    draining.CHECK_FAILED,
                    f"Draining check expression does not evaluate to a bool on {slot.name}.",
                )
            if not value:
                raise draining.refused(
                    draining.CHECK_FAILED, f"Draining check expression is false on {slot.name}."
                )

    async def cancel_drain(self, peer: Peer, req: CancelDrain, ch: wire.Channel) -> Done:
        drain = self.draining
        if req.request_id and (drain is None or drain.request_id != req.request_id):
            raise draining.refused(
                draining.NO_SUCH_REQUEST, f"No matching draining request id {req.request_id}."
            )
        if drain is not None:
            self._undrain("condor_drain -cancel")
        return Done()

    def _undrain(self, why: str) -> None:
        log.info("draining is over: %s", why)
        self.draining = None
        self.table.drain_attrs = {}
        for slot in self.table.all_slots():
            slot.flags.no_retirement = False  # a job already leaving goes on leaving
        self.wake_up()
        self._touch()

    async def _drain_progress(self) -> None:
        """Once every slot is Drained, what the request asks next."""
        drain = self.draining
        if drain is None or drain.completed:
            return
        if any(s.state != "Drained" for s in self.table.all_slots()):
            return
        drain.completed = True
        log.info("drained: every slot is Drained (then %s)", drain.on_completion)
        if drain.on_completion == "resume":
            self._undrain("resume on completion")
            for slot in self.table.all_slots():
                await self.settle(slot)
        elif drain.on_completion == "exit":
            # As HTCondor's: the startd exits, and tells its master not to restart it.
            self.exit_status = DAEMON_NO_RESTART
            self.stop_requested.set()

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

    def _note_cpu_busy(self, slot: Slot) -> None:
        """CpuBusyTime: how long the configured CPUBusy expression has been true."""
        busy = self.table.policy.holds("CPUBusy", self.table.view(slot))
        if not busy:
            slot.cpu_busy_since = None
        elif slot.cpu_busy_since is None:
            slot.cpu_busy_since = self.now()

    async def _enforce_killing_timeout(self, slot: Slot) -> None:
        """Killing for longer than KILLING_TIMEOUT: the starter itself is hard-killed."""
        if slot.activity != "Killing" or slot.claim is None or slot.claim.job is None:
            return
        if self.now() - slot.killing_since < self.killing_timeout:
            return
        starter = self.starters.pop(slot.claim.id, None)
        if starter is not None:
            log.warning("%s: still killing after KILLING_TIMEOUT; killing the starter", slot.name)
            starter.kill()
            self.nursery.start_soon(starter.close)

    async def poll_loop(self) -> None:
        while True:
            try:
                await self.poll()
            except Exception:
                # A policy that cannot be evaluated must not stop the startd.
                log.exception("policy evaluation failed")
            active = any(s.state in ACTIVE for s in self.table.all_slots())
            wait = self.polling_interval if active else self.table.update_interval
            with trio.move_on_after(wait):
                await self.wake.wait()
            self.wake = trio.Event()

    def ads(self) -> list[dict[str, Any]]:
        """The slots' ads for the collector, as a new update in sequence."""
        self.table.sequence += 1
        return self.table.ads()

    def _touch(self) -> None:
        self.advertiser.poke()

    # -- handlers -------------------------------------------------------------------------

    def _slot(self, name: Any) -> Slot:
        slot = self.table.named(name)
        if slot is None:
            raise Refused("not-found", f"no slot {name!r} here")
        return slot

    def _claimed(self, claim_id: Any) -> Slot:
        slot = self.table.claimed_by(claim_id)
        if slot is None:
            raise Refused("not-found", "unknown claim")
        return slot

    def _carve(self, parent: Slot, request: dict[str, Any]) -> Slot:
        try:
            return self.table.carve(parent, request)
        except CarveError as e:
            raise Refused(e.kind, str(e)) from None

    def _job_pid(self, slot: Slot) -> int | None:
        starter = self.starters.get(slot.claim.id) if slot.claim is not None else None
        return starter.job_pid if starter is not None else None

    def _taking_work(self) -> None:
        if self.stopping:
            raise Refused("busy", f"the startd is shutting down ({self.stopping})")
        if self.draining is not None:
            raise Refused("busy", "the startd is draining")

    async def match(self, peer: Peer, req: Match, ch: wire.Channel) -> MatchTaken:
        self._taking_work()
        slot = self._slot(req.slot)
        if slot.claim is not None and slot.claim.id == req.claim_id:
            return MatchTaken(slot.name)  # its schedd claimed it already (5)
        if slot.state == "Claimed" and req.preempts:
            return await self._preempting_match(slot, req)
        # An Owner slot takes a job its START accepts too: "if a job matches the
        # resource's START expression, the resource is available to run a job,
        # regardless of if it is in the Owner or Unclaimed state".
        if slot.state not in ("Unclaimed", "Owner", "Backfill") or slot.claim is not None:
            raise Refused("busy", f"{slot.name} is {slot.state}/{slot.activity}, not Unclaimed")
        if slot.kind == "Partitionable":
            slot = self._carve(slot, req.request or {})
        slot.claim = Claim(id=req.claim_id, schedd=req.schedd, user=req.user, matched_at=self.now())
        if slot.state == "Backfill":
            # The backfill client goes first (28); then Matched (32), or Claimed (31) if
            # the schedd's claim comes while it is being killed.
            slot.flags.pending_match = True
            await self.settle(slot)
        else:
            await self.take(slot, states.MATCHED)
        return MatchTaken(slot.name)

    async def matches(self, peer: Peer, req: Matches, ch: wire.Channel) -> Each:
        return Each(await batch.each(peer, req.items, Match, self.match, ch))

    async def _preempting_match(self, slot: Slot, req: Match) -> MatchTaken:
        """A match for a claimed slot whose job it preempts (the slot's RANK prefers the
        new job, or its user has the better priority): the claim retires (13) and, once
        its job is gone, the slot is the new claim's (23, 24)."""
        if slot.next_claim is not None:
            raise Refused("busy", f"{slot.name} is already being preempted")
        current = slot.claim
        if req.preempts == "priority" and current is not None:
            if current.user == req.user:  # a stale ad: the user holds it already
                raise Refused("busy", f"{slot.name} is already claimed by {current.user}")
        slot.next_claim = Claim(
            id=req.claim_id, schedd=req.schedd, user=req.user, matched_at=self.now()
        )
        log.info("%s: preempting match (%s) for %s", slot.name, req.preempts, req.user)
        slot.flags.vacate_requested = Why.BETTER_MATCH
        await self.settle(slot)
        return MatchTaken(slot.name)

    async def claim(self, peer: Peer, req: ClaimSlot, ch: wire.Channel) -> Claimed:
        waiting = self._preempting(req.claim_id)
        if waiting is None:
            # The preemption may be over already: the slot is this (unclaimed) claim's.
            waiting = next(
                (
                    s
                    for s in self.table.all_slots()
                    if s.state == "Claimed"
                    and s.claim is not None
                    and s.claim.id == req.claim_id
                    and not s.claim.claimed
                ),
                None,
            )
        if waiting is not None:
            return await self._claim_after_preemption(waiting, peer, req)
        try:
            slot, step = self._claimed(req.claim_id), states.CLAIMED
        except Refused:
            # The schedd came before the negotiator's word of the match (transition 5).
            slot, step = self._claim_first(req), states.CLAIMED_DIRECTLY
        claim = slot.claim
        assert claim is not None
        if slot.state not in ("Matched", "Unclaimed", "Backfill"):
            raise Refused("busy", f"{slot.name} is {slot.state}, not Matched")
        claim.claimed = True
        claim.claimed_at = self.now()
        claim.schedd = req.schedd or claim.schedd
        claim.client_machine = req.client_machine
        if slot.state == "Backfill":
            await self._claim_after_backfill(slot)
        else:
            await self.take(slot, step)
        peer.on_close.append(lambda: self._schedd_gone(slot, claim))
        return Claimed(slot.name, self.table.advertised(slot))

    def _preempting(self, claim_id: Any) -> Slot | None:
        for s in self.table.all_slots():
            if s.next_claim is not None and s.next_claim.id == claim_id:
                return s
        return None

    async def _claim_after_preemption(self, slot: Slot, peer: Peer, req: ClaimSlot) -> Claimed:
        """The preempting schedd's claim: answered once the old claim's job is gone and
        the slot is this claim's (however long the old job's retirement lasts)."""
        claim = slot.next_claim if slot.next_claim is not None else slot.claim
        assert claim is not None
        claim.claimed = True  # asked for: the preemption is no longer undone (19)
        claim.claimed_at = self.now()
        while slot.claim is not claim:
            if slot.next_claim is not claim:
                raise Refused("not-found", "the preempting match went away")
            await self._next_step()
        claim.claimed_at = self.now()
        claim.schedd = req.schedd or claim.schedd
        claim.client_machine = req.client_machine
        peer.on_close.append(lambda: self._schedd_gone(slot, claim))
        log.info("%s: claimed by the preempting match", slot.name)
        return Claimed(slot.name, self.table.advertised(slot))

    async def _claim_after_backfill(self, slot: Slot) -> None:
        """Claimed while its backfill client is being killed: Claimed once it is gone (31)."""
        slot.flags.pending_match, slot.flags.pending_claim = False, True
        await self.settle(slot)
        with trio.move_on_after(self.killing_timeout + 10):
            while slot.state != "Claimed":
                await self._next_step()
                await self.settle(slot)
        if slot.state != "Claimed":
            raise Refused("busy", f"the backfill client on {slot.name} would not stop")

    def _claim_first(self, req: ClaimSlot) -> Slot:
        """A claim for a static slot the negotiator has matched but not yet told us of."""
        slot = self._slot(req.slot)
        if slot.kind != "Static" or slot.state != "Unclaimed" or slot.claim is not None:
            raise Refused("not-found", "unknown claim")
        slot.claim = Claim(id=req.claim_id, schedd=req.schedd, user=req.user, matched_at=self.now())
        return slot

    def _schedd_gone(self, slot: Slot, claim: Claim) -> None:
        """The connection the claim was made on closed: the claim ends with it, its job
        (if one still runs) killed at once, as a claim whose lease lapsed."""
        if slot.claim is not claim:
            return
        log.info("%s: the schedd's connection for claim %s closed", slot.name, claim.id[:8])
        slot.flags.vacate_requested = Why.RELEASED
        slot.flags.fast = True
        self.wake.set()

    async def run(self, peer: Peer, req: RunJob, ch: wire.Channel) -> RunEnded:
        slot = self._claimed(req.claim_id)
        claim = slot.claim
        assert claim is not None
        if slot.state != "Claimed" or slot.activity != "Idle" or claim.job is not None:
            raise Refused("busy", f"{slot.name} is {slot.state}/{slot.activity}: no new job")
        self._taking_work()
        view = self.table.view(slot)
        if self._worklife_over(claim, view):
            raise Refused("busy", f"the claim on {slot.name} is past its CLAIM_WORKLIFE")
        job = wire.ad_from_packed(req.job, "job ad")
        return await self.execute(slot, job, req.files, ch, view, req.job)

    async def execute(
        self,
        slot: Slot,
        job: ClassAd,
        files: dict[str, bytes] | None,
        ch: wire.Channel | None,
        view: ClassAd | None = None,
        job_wire: bytes | None = None,
    ) -> RunEnded:
        """Run `job` on the slot's claim (11) until it ends; how it ended. `ch` is the
        schedd's run call, told of the job's progress (None for fetched work); `view`
        and `job_wire` spare work the caller did already."""
        claim = slot.claim
        assert claim is not None
        claim.job, claim.last_job, claim.job_start, claim.notify = job, job, self.now(), ch
        claim.job_run_time = claim.job_suspend_time = 0.0
        claim.evicted = ""
        rank = self.table.policy.number("RANK", view or self.table.view(slot), job)
        claim.rank = rank if rank is not None else 0.0
        slot.flags.job_running = True
        step = ACTIVATED_FETCHED if claim.fetched else states.ACTIVATED
        await self.take(slot, step)
        try:
            reply = await self._supervise(slot, job, job_wire or wire.pack_ad(job), files, ch)
        finally:
            claim.job, claim.notify = None, None
            slot.flags.job_running = False
        await self.settle(slot)  # 12 (Busy to Idle), or on through Preempting
        # The claim may have ended with the job (evicted, or past CLAIM_WORKLIFE): the
        # schedd must not send it another.
        ended = slot.claim is not claim
        if claim.evicted:
            return RunEnded(vacated=claim.evicted, claim_ended=ended)
        return dataclasses.replace(reply, claim_ended=ended)

    async def _supervise(
        self,
        slot: Slot,
        job: ClassAd,
        job_wire: bytes,
        files: dict[str, bytes] | None,
        ch: wire.Channel | None,
    ) -> RunEnded:
        """Hand the job to the claim's starter (spawned on its first job) and relay its
        frames to the schedd: started, heartbeats, then how the job ended."""
        assert slot.claim is not None
        starter = self.starters.get(slot.claim.id)
        if starter is None or not starter.alive:
            starter = await StarterProcess.spawn(self.starter_log)
            self.starters[slot.claim.id] = starter
        request = StartJob(
            job=job_wire,
            scratch=str(self.execute_dir),
            slot=slot.name,
            files=files,
            heartbeat=job_lease.heartbeat(job, self.heartbeat),
            # When this startd is root, the account the job runs as.
            user=runas.account_for(self.cfg, slot.name, job),
            **self._starter_hooks(slot, job),
        )

        async def tell(frame: dict[str, Any]) -> None:
            if ch is not None:
                await ch.send({"more": frame})

        try:
            async for frame in starter.run(request):
                if "started" in frame:
                    await tell({"started": frame["started"], "host": self.table.machine.address})
                elif "alive" in frame or "waiting" in frame:
                    await tell(frame)
                elif "done" in frame:
                    return RunEnded.from_wire(frame["done"])
                else:  # failed, missed or vacated
                    return RunEnded.from_wire(frame)
        except (wire.WireError, trio.BrokenResourceError, trio.ClosedResourceError):
            # The starter died, or the schedd did (its end of this call is gone): either
            # way the run is over; its job must not outlive it.
            starter.kill_job()
            if self.starters.pop(slot.claim.id, None) is starter:
                self.nursery.start_soon(starter.close)
            if slot.claim is not None and slot.claim.evicted:
                return RunEnded()  # killed by the policy: the caller reports it
            raise Refused("starter", f"the run on {slot.name} was cut off") from None
        raise Refused("starter", f"the starter of {slot.name} stopped answering")

    def _starter_hooks(self, slot: Slot, job: ClassAd) -> dict[str, Any]:
        """The job's starter hooks: STARTER_JOB_HOOK_KEYWORD's, else its HookKeyword's
        (manual 4.4.3), with the slot's ad PREPARE_JOB is given."""
        keyword = (self.cfg.get("STARTER_JOB_HOOK_KEYWORD") or "").strip()
        if not keyword:
            own = job.get("HookKeyword")
            keyword = own.strip() if isinstance(own, str) else ""
        if not keyword:
            return {}
        if keyword not in self.starter_hooks:
            found = hooks.configured(self.cfg, keyword, hooks.STARTER_HOOKS)
            self.starter_hooks[keyword] = [h.to_wire() for h in found.values()]
        wanted = self.starter_hooks[keyword]
        if not wanted:
            return {}
        return {
            "hooks": wanted,
            "updates": self.updates,
            "slot_ad": self.table.advertised(slot),
        }

    async def deactivate(self, peer: Peer, req: Deactivate, ch: wire.Channel) -> Deactivated:
        """The schedd stops its job (condor_rm, condor_hold): soft kill, hard after
        KILLING_TIMEOUT; the claim stays, and the slot goes Idle when the job is gone."""
        slot = self._claimed(req.claim_id)
        claim = slot.claim
        assert claim is not None
        starter = self.starters.get(claim.id)
        if starter is None or claim.job is None or not _is_job(claim.job, req.job):
            return Deactivated(running=False)
        log.info("%s: the schedd deactivates the claim: stopping its job", slot.name)
        why = req.why if req.why in ("hold", "remove") else "evict"
        if why == "evict":
            # The job is vacated, not ended (condor_now gives its slot to another job): it
            # goes back to its queue, and the claim stays for the schedd's next job.
            claim.evicted = claim.evicted or "the schedd vacated the job"
        await starter.send_signal(signal.SIGTERM, why)
        await starter.send_signal(signal.SIGCONT)

        async def hard_kill() -> None:
            await trio.sleep(self.killing_timeout)
            if slot.claim is claim and claim.job is not None:
                await starter.send_signal(signal.SIGKILL)

        self.nursery.start_soon(hard_kill)
        return Deactivated(running=True)

    async def suspend(self, peer: Peer, req: Suspend, ch: wire.Channel) -> Done:
        """condor_suspend: stop the claim's job where it is (SIGSTOP to its process tree)."""
        return await self._pause(req.claim_id, Step(14, "Claimed", "Suspended", "condor_suspend"))

    async def resume(self, peer: Peer, req: Continue, ch: wire.Channel) -> Done:
        """condor_continue: let a suspended job go on (SIGCONT to its process tree)."""
        return await self._pause(req.claim_id, Step(15, "Claimed", "Busy", "condor_continue"))

    async def _pause(self, claim_id: str, step: Step) -> Done:
        slot = self._claimed(claim_id)
        assert slot.claim is not None
        if slot.claim.job is None or slot.claim.id not in self.starters:
            raise Refused("not-found", f"no job is running on {slot.name}")
        sig = signal.SIGSTOP if step.activity == "Suspended" else signal.SIGCONT
        await self._signal(slot, sig)
        if slot.state == "Claimed" and slot.activity != step.activity:
            await self.take(slot, step)
        # A job the user suspended stays suspended until condor_continue: CONTINUE only
        # undoes what SUSPEND did.
        slot.flags.user_suspended = step.activity == "Suspended" and slot.activity == "Suspended"
        return Done()

    async def release(self, peer: Peer, req: Release, ch: wire.Channel) -> Done:
        """The schedd gives the claim up: Preempting (10), then Owner (22)."""
        slot = self._claimed(req.claim_id)
        slot.flags.vacate_requested = Why.RELEASED
        await self.settle(slot)
        return Done()

    async def vacate(self, peer: Peer, req: Vacate, ch: wire.Channel) -> Vacated:
        """condor_vacate: take every claimed slot's job off (gracefully, or `fast`)."""
        names = req.slots
        chosen = [s for s in self.table.all_slots() if not names or s.name in names]
        for slot in chosen:
            if slot.claim is not None and slot.state in ("Claimed", "Matched"):
                slot.flags.vacate_requested = Why.VACATE
                slot.flags.fast = req.fast
        for slot in chosen:
            await self.settle(slot)
        return Vacated([s.name for s in chosen])

    async def query_slots(self, peer: Peer, req: QuerySlots, ch: wire.Channel) -> SlotAds:
        ads = self.table.ads()
        for slot, ad in zip(self.table.all_slots(), ads, strict=True):
            starter = self.starters.get(slot.claim.id) if slot.claim is not None else None
            if starter is not None:
                if starter.process.pid is not None:
                    ad["StarterPid"] = starter.process.pid
                if starter.job_pid is not None:
                    ad["JobPid"] = starter.job_pid
        return SlotAds(wire.pack_ads(ads))

    async def peek(self, peer: Peer, req: Peek, ch: wire.Channel) -> Peeked:
        """condor_tail: the running job's files, read for its owner."""
        slot = next(
            (
                s
                for s in self.table.all_slots()
                if s.claim and s.claim.job and _is_job(s.claim.job, req.job)
            ),
            None,
        )
        starter = self.starters.get(slot.claim.id) if slot and slot.claim else None
        if slot is None or slot.claim is None or slot.claim.job is None or starter is None:
            raise Refused("not-found", f"job {req.job} is not running here")
        if peer.user != slot.claim.user and not security.is_admin(peer.user):
            raise Refused(
                "permission",
                f"{peer.user} is not authorized for access to the starter for job {req.job}",
            )
        names = [str(n) for n in req.files or []] or (
            ["stdout"] * req.stdout + ["stderr"] * req.stderr
        )
        account = runas.account_for(self.cfg, slot.name, slot.claim.job)
        offsets = req.offsets or {}
        limit = max(1, min(req.max_bytes, 1 << 20))
        data: dict[str, Any] = {}
        sizes: dict[str, Any] = {}
        for name in names:
            path = peek.resolve(starter.places, name)
            offset = offsets.get(name)
            got, size = await trio.to_thread.run_sync(
                peek.read, path, offset if isinstance(offset, int) else None, limit, account
            )
            data[name], sizes[name] = got, size
        return Peeked(data, sizes)

    async def shutdown(self, mode: str) -> None:
        """Give up every claim the way `mode` says, then return (the startd exits)."""
        self.stopping = mode
        log.info("shutting down (%s)", mode)
        await self._give_up_claims(Why.SHUTDOWN, "the startd is shutting down", mode == "fast")
        while any(s.claim is not None for s in self.table.all_slots()) or self.backfill.running:
            await self.poll()
            with trio.move_on_after(0.5):
                await self.wake.wait()
            self.wake = trio.Event()
        log.info("shut down (%s): no claim is left", mode)

    def handlers(self) -> dict[type[Message], Handler]:
        return {
            Match: self.match,
            Matches: self.matches,
            ClaimSlot: self.claim,
            RunJob: self.run,
            Deactivate: self.deactivate,
            Suspend: self.suspend,
            Continue: self.resume,
            Release: self.release,
            Vacate: self.vacate,
            QuerySlots: self.query_slots,
            DrainJobs: self.drain,
            CancelDrain: self.cancel_drain,
            Peek: self.peek,
        }

    nursery: trio.Nursery


async def _stop_on_signals(startd: Startd) -> None:
    with trio.open_signal_receiver(*SHUTDOWN_SIGNALS) as signals:
        async for signum in signals:
            startd.stop_mode = SHUTDOWN_SIGNALS[signal.Signals(signum)]
            startd.stop_requested.set()
            return


def _is_job(job: ClassAd, named: Any) -> bool:
    """Whether the claim's job is the one a request names (None names whichever runs)."""
    return named is None or named == f"{job.get('ClusterId')}.{job.get('ProcId')}"


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    startd = Startd(cfg)
    server = Server.for_daemon("startd", startd.handlers(), cfg, cedar_startd.commands())
    server.show(lambda: startd.table.ads())  # as advertised, without a new sequence number
    try:
        async with trio.open_nursery() as nursery:
            startd.nursery = nursery
            address = await server.listen(nursery, cfg.get_int("STARTD_PORT", 0))
            startd.table.machine = replace(startd.table.machine, address=address)
            locate.write_address(locate.startd_address_file(cfg), address)
            # The starters' fork server, started beside the first poll, not at a claim.
            nursery.start_soon(trio.to_thread.run_sync, starter_forks.warm)
            await startd.poll()  # Owner to Unclaimed (1) before the first advertisement
            nursery.start_soon(startd.poll_loop)
            await nursery.start(startd.advertiser.run)
            startd.fetcher.start(nursery)
            log.info("startd with %d slots at %s", len(startd.table.slots), address)
            task_status.started(address)
            nursery.start_soon(_stop_on_signals, startd)
            await startd.stop_requested.wait()
            await startd.shutdown(startd.stop_mode)
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            startd.backfill.kill(signal.SIGKILL)
            for starter in startd.starters.values():
                await starter.close()
            await startd.collector.withdraw("Machine", [s.name for s in startd.table.all_slots()])
    if startd.exit_status:
        raise SystemExit(startd.exit_status)
