"""The pool simulator: one process hosting many simulated execute machines (SIM_MACHINES
of them, each laid out from the configuration as a startd's slots are, or a real pool's
from the `condor_status -l` dump SIM_MACHINE_ADS names), behind one listener that
speaks the startd's protocol (`protocol.startd`) to the real collector, negotiator and
schedd. A simulated slot is matched, claimed and activated as a real one is; its job
"runs" for a simulated duration (the job's `SimDuration`, else SIM_JOB_DURATION: seconds,
or a distribution, see `durations`) and ends with exit code 0, as a starter would report
it.

What it leaves out, for now: the startd's policy (a simulated slot is Unclaimed until
matched, and never preempted or suspended), and files (a simulated job's input is not
read and its output is none).
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from typing import Any

import trio

from condorx.client.collector import CollectorClient
from condorx.daemons.core import batch, job_lease
from condorx.daemons.core.server import Handler, Peer, Server
from condorx.daemons.startd.slots import Claim, Slot
from condorx.daemons.startd.states import Activity, State
from condorx.daemons.startd.table import CarveError, SlotTable
from condorx.errors import Refusal, Refused
from condorx.language.config import Config
from condorx.sim import machines
from condorx.sim.durations import Durations
from condorx.sim.machines import SimMachines
from condorx.transport import locate, wire
from condorx.transport.connection import daemon_credentials
from condorx.transport.protocol.message import Done, Each, Message
from condorx.transport.protocol.startd import (
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
    QuerySlots,
    Release,
    RunEnded,
    RunJob,
    SlotAds,
    Suspend,
    Vacate,
    Vacated,
)

log = logging.getLogger("condorx.sim")


@dataclasses.dataclass
class _Run:
    """A simulated job running on a claim; cancelled to stop it early."""

    scope: trio.CancelScope
    job: str
    ended_by: str = ""  # why it was stopped early: "hold", "remove", "evict", "vacate"


class Simulator:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.machines = SimMachines(machines.configured(cfg))
        self.durations = Durations.parse(
            cfg.get("SIM_JOB_DURATION") or "60", seed=cfg.get("SIM_SEED") or ""
        )
        self.heartbeat = cfg.get_float("STARTER_HEARTBEAT", job_lease.DEFAULT_HEARTBEAT)
        self.update_interval = max(1, cfg.get_int("UPDATE_INTERVAL", 300))
        self.collector = CollectorClient(cfg, daemon_credentials(cfg))
        self.changed = trio.Event()
        self.runs: dict[str, _Run] = {}  # claim id -> its running job
        self.pids = itertools.count(100_000)
        for _, slot in self.machines.slots():
            slot.enter(State.UNCLAIMED, Activity.IDLE, slot.entered_state)

    # -- slots and claims -----------------------------------------------------------------

    def _slot(self, name: str) -> tuple[SlotTable, Slot]:
        found = self.machines.named(name)
        if found is None:
            raise Refused(Refusal.NOT_FOUND, f"no slot {name!r} here")
        return found

    def _claimed(self, claim_id: str) -> tuple[SlotTable, Slot]:
        found = self.machines.claimed_by(claim_id)
        if found is None:
            raise Refused(Refusal.NOT_FOUND, "unknown claim")
        return found

    def _enter(self, table: SlotTable, slot: Slot, state: State, activity: Activity) -> None:
        slot.enter(state, activity, table.now())
        self.machines.touch(table, slot)
        self.changed.set()

    def _end_claim(self, table: SlotTable, slot: Slot) -> None:
        if slot.claim is not None:
            self.machines.unclaimed(slot.claim.id)
        slot.claim = None
        if slot.kind == "Dynamic" and slot.parent is not None:
            if slot in slot.parent.children:
                slot.parent.children.remove(slot)
            self.machines.forget(slot)
        self._enter(table, slot, State.UNCLAIMED, Activity.IDLE)

    # -- the startd's commands --------------------------------------------------------------

    async def match(self, peer: Peer, req: Match, ch: wire.Channel) -> MatchTaken:
        table, slot = self._slot(req.slot)
        if slot.claim is not None and slot.claim.id == req.claim_id:
            return MatchTaken(slot.name)
        if slot.state != State.UNCLAIMED or slot.claim is not None:
            raise Refused(
                Refusal.BUSY, f"{slot.name} is {slot.state}/{slot.activity}, not Unclaimed"
            )
        if slot.kind == "Partitionable":
            try:
                slot = table.carve(slot, req.request or {})
            except CarveError as e:
                raise Refused(Refusal(e.kind), str(e)) from None
            self.machines.remember(table, slot)
        slot.claim = Claim(id=req.claim_id, schedd=req.schedd, user=req.user)
        slot.claim.matched_at = table.now()
        self.machines.claimed(table, slot)
        self._enter(table, slot, State.MATCHED, Activity.IDLE)
        return MatchTaken(slot.name)

    async def matches(self, peer: Peer, req: Matches, ch: wire.Channel) -> Each:
        return Each(await batch.each(peer, req.items, Match, self.match, ch))

    async def claim(self, peer: Peer, req: ClaimSlot, ch: wire.Channel) -> Claimed:
        found = self.machines.claimed_by(req.claim_id)
        if found is None:  # the schedd came before the negotiator's word of the match
            table, slot = self._slot(req.slot)
            if slot.kind != "Static" or slot.state != State.UNCLAIMED or slot.claim is not None:
                raise Refused(Refusal.NOT_FOUND, "unknown claim")
            slot.claim = Claim(id=req.claim_id, schedd=req.schedd, user=req.user)
            self.machines.claimed(table, slot)
        else:
            table, slot = found
        claim = slot.claim
        assert claim is not None
        claim.claimed, claim.claimed_at = True, table.now()
        claim.client_machine = req.client_machine
        self._enter(table, slot, State.CLAIMED, Activity.IDLE)
        # The claim lasts as long as the schedd's connection, as a real startd's does.
        peer.on_close.append(lambda: self._lapse(table, slot, claim))
        return Claimed(slot.name, table.advertised(slot))

    def _lapse(self, table: SlotTable, slot: Slot, claim: Claim) -> None:
        if slot.claim is claim:
            run = self.runs.get(claim.id)
            if run is not None:
                run.ended_by = run.ended_by or "evict"
                run.scope.cancel()
            self._end_claim(table, slot)

    async def run(self, peer: Peer, req: RunJob, ch: wire.Channel) -> RunEnded:
        table, slot = self._claimed(req.claim_id)
        if (
            slot.state != State.CLAIMED
            or slot.activity != Activity.IDLE
            or req.claim_id in self.runs
        ):
            raise Refused(Refusal.BUSY, f"{slot.name} is {slot.state}/{slot.activity}: no new job")
        job = wire.ad_from_packed(req.job, "job ad")
        job_id = f"{job.get('ClusterId')}.{job.get('ProcId')}"
        seconds = self.durations.of(job_id, job.get("SimDuration"))
        run = _Run(trio.CancelScope(), job_id)
        self.runs[req.claim_id] = run
        self._enter(table, slot, State.CLAIMED, Activity.BUSY)
        started = trio.current_time()
        try:
            await ch.send({"more": {"started": next(self.pids), "host": table.machine.address}})
            with run.scope:
                await self._pass(seconds, job_lease.heartbeat(job, self.heartbeat), ch)
        finally:
            self.runs.pop(req.claim_id, None)
            if slot.claim is not None and slot.claim.id == req.claim_id:
                self._enter(table, slot, State.CLAIMED, Activity.IDLE)
        wall = trio.current_time() - started
        if run.ended_by == "vacate":
            return RunEnded(vacated="condor_vacate", wall=wall, claim_ended=slot.claim is None)
        if run.ended_by:  # stopped by its schedd (held or removed): killed by SIGTERM
            killed = {"ExitBySignal": True, "ExitSignal": 15}
            return RunEnded(outcome=killed, wall=wall, claim_ended=slot.claim is None)
        outcome: dict[str, Any] = {"ExitBySignal": False, "ExitCode": 0, "RemoteUserCpu": 0.0}
        return RunEnded(outcome=outcome, wall=wall, files={})

    async def _pass(self, seconds: float, heartbeat: float, ch: wire.Channel) -> None:
        """The job's simulated run time, with a heartbeat on its run call as a starter's."""
        deadline = trio.current_time() + seconds
        while (left := deadline - trio.current_time()) > 0:
            await trio.sleep(min(left, heartbeat))
            if trio.current_time() < deadline:
                await ch.send({"more": {"alive": int(trio.current_time())}})

    async def deactivate(self, peer: Peer, req: Deactivate, ch: wire.Channel) -> Deactivated:
        self._claimed(req.claim_id)
        run = self.runs.get(req.claim_id)
        if run is None or (req.job is not None and req.job != run.job):
            return Deactivated(running=False)
        run.ended_by = req.why
        run.scope.cancel()
        return Deactivated(running=True)

    async def suspend(self, peer: Peer, req: Suspend, ch: wire.Channel) -> Done:
        raise Refused(Refusal.BAD_REQUEST, "a simulated job cannot be suspended")

    async def resume(self, peer: Peer, req: Continue, ch: wire.Channel) -> Done:
        raise Refused(Refusal.BAD_REQUEST, "a simulated job cannot be suspended")

    async def release(self, peer: Peer, req: Release, ch: wire.Channel) -> Done:
        table, slot = self._claimed(req.claim_id)
        run = self.runs.get(req.claim_id)
        if run is not None:
            run.ended_by = "evict"
            run.scope.cancel()
        self._end_claim(table, slot)
        return Done()

    async def vacate(self, peer: Peer, req: Vacate, ch: wire.Channel) -> Vacated:
        chosen = [(t, s) for t, s in self.machines.slots() if not req.slots or s.name in req.slots]
        for table, slot in chosen:
            claim = slot.claim
            if claim is None:
                continue
            run = self.runs.get(claim.id)
            if run is not None:
                run.ended_by = "vacate"
                run.scope.cancel()
            self._end_claim(table, slot)
        return Vacated([s.name for _, s in chosen])

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
            CancelDrain: self.drain,
            Peek: self.query_slots,
        }

    async def drain(self, peer: Peer, req: Message, ch: wire.Channel) -> DrainStarted:
        raise Refused(Refusal.NOT_SUPPORTED, "a simulated pool does not drain")

    async def query_slots(self, peer: Peer, req: Message, ch: wire.Channel) -> SlotAds:
        raise Refused(
            Refusal.NOT_SUPPORTED,
            "a simulated pool runs no processes: ask its collector (condor_status)",
        )

    # -- advertising --------------------------------------------------------------------------

    async def advertise_loop(self) -> None:
        """Every slot's ad every UPDATE_INTERVAL; in between, soon after a change, the
        ads of the slots that changed (and the dynamic slots gone withdrawn), gathered
        into one update, as a real startd updates its slots' ads."""
        full_due = trio.current_time()
        while True:
            full = trio.current_time() >= full_due
            ads, gone = self.machines.updates(everything=full)
            try:
                if gone:
                    await self.collector.withdraw("Machine", gone)
                if ads:
                    await self.collector.advertise(ads)
                if full:
                    full_due = trio.current_time() + self.update_interval
            except (OSError, wire.WireError, wire.RemoteError) as e:
                log.warning("cannot update the collector: %s", e)
                self.machines.not_withdrawn(gone)
                # What was lost goes in the next update, whole, in a moment.
                full_due = trio.current_time() + 2
            with trio.move_on_after(max(0.0, full_due - trio.current_time())):
                await self.changed.wait()
            self.changed = trio.Event()
            await trio.sleep(0.2)  # one update for a burst of changes


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    """Run the simulator until cancelled; reports its address once it accepts requests."""
    sim = Simulator(cfg)
    server = Server.for_daemon("startd", sim.handlers(), cfg)
    try:
        async with trio.open_nursery() as nursery:
            address = await server.listen(nursery, cfg.get_int("SIM_PORT", 0))
            sim.machines.set_address(address)
            locate.write_address(locate.sim_address_file(cfg), address)
            nursery.start_soon(sim.advertise_loop)
            slots = sum(1 for _ in sim.machines.slots())
            log.info(
                "%d simulated machines, %d slots, at %s", len(sim.machines.tables), slots, address
            )
            task_status.started(address)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            await sim.collector.withdraw("Machine", [s.name for _, s in sim.machines.slots()])
