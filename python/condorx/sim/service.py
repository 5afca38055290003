"""The pool simulator: one process hosting many simulated execute machines (SIM_MACHINES
of them, each laid out from the configuration as a startd's slots are, or a real pool's
from the `condor_status -l` dump SIM_MACHINE_ADS names), behind one listener that
speaks the startd's protocol (`protocol.startd`) to the real collector, negotiator and
schedd.

Each simulated machine is the startd's own code (`daemons.startd.service.Startd`): its
slot table, its policy state machine polled as a startd polls it, partitionable slots
carved into dynamic ones, and its request handlers. Only what a machine would read of
its hardware is simulated (see `machines`), and the starter: a job "runs" for a
simulated duration (`starter`, `durations`). This module only routes each request to the
machine it concerns (`ROUTES`: every startd request has one) and sends the collector
the slots that changed, gathered into one update.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import trio

from condorx.client.collector import CollectorClient
from condorx.daemons.core import batch, collection
from condorx.daemons.core.server import Handler, Peer, Server
from condorx.daemons.startd.service import Startd
from condorx.errors import Refusal, Refused
from condorx.language.config import Config
from condorx.sim import machines, starter
from condorx.sim.alarms import Alarms
from condorx.sim.durations import Durations
from condorx.sim.machines import SimMachines
from condorx.transport import locate, wire
from condorx.transport.connection import daemon_credentials
from condorx.transport.protocol.message import Each, Message, Reply
from condorx.transport.protocol.startd import (
    CancelDrain,
    ClaimSlot,
    Continue,
    Deactivate,
    DrainJobs,
    Match,
    Matches,
    MatchTaken,
    Peek,
    QuerySlots,
    Release,
    RunJob,
    SlotAds,
    Suspend,
    Vacate,
    Vacated,
)

log = logging.getLogger("condorx.sim")


class Simulator:
    def __init__(self, cfg: Config, clock: Callable[[], float] = time.time) -> None:
        """`clock` is the simulated machines' (epoch seconds), a port: tests give a
        MockClock's."""
        self.cfg = cfg
        durations = Durations.parse(
            cfg.get("SIM_JOB_DURATION") or "60", seed=cfg.get("SIM_SEED") or ""
        )
        tables = machines.configured(cfg, clock)
        self.alarms = Alarms()
        self.machines = SimMachines(cfg, tables, starter.backend(durations, self.alarms))
        self.update_interval = max(1, cfg.get_int("UPDATE_INTERVAL", 300))
        self.collector = CollectorClient(cfg, daemon_credentials(cfg))
        self.changed = trio.Event()
        self.machines.changed = lambda: self.changed.set()
        self.nursery: trio.Nursery | None = None

    # -- routing: each request to the machine it concerns -----------------------------------

    def _by_slot(self, name: object) -> Startd:
        found = self.machines.of_slot(name)
        if found is None:
            raise Refused(Refusal.NOT_FOUND, f"no slot {name!r} here")
        return found

    def _by_claim(self, claim_id: object) -> Startd:
        found = self.machines.of_claim(claim_id)
        if found is None:
            raise Refused(Refusal.NOT_FOUND, "unknown claim")
        return found

    async def match(self, peer: Peer, req: Match, ch: wire.Channel) -> MatchTaken:
        startd = self._by_slot(req.slot)
        taken = await startd.claims.match(peer, req, ch)
        self.machines.note_claim(req.claim_id, startd)
        return taken

    async def matches(self, peer: Peer, req: Matches, ch: wire.Channel) -> Each:
        return Each(await batch.each(peer, req.items, Match, self.match, ch))

    async def claim(self, peer: Peer, req: ClaimSlot, ch: wire.Channel) -> Reply:
        """A claim (with its first run, when it brings its job): its machine notes the
        claim's id for the requests that follow (`SimMachines.note_claim`)."""
        found = self.machines.of_claim(req.claim_id)
        startd = found if found is not None or not req.slot else self._by_slot(req.slot)
        if startd is None:
            raise Refused(Refusal.NOT_FOUND, "unknown claim")
        return await startd.claims.claim(peer, req, ch)

    def _on_claim(self, pick: Callable[[Startd], Handler]) -> Handler:
        """A request about one claim, answered by its machine's handler."""

        async def handle(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
            return await pick(self._by_claim(req.claim_id))(peer, req, ch)

        return handle

    async def vacate(self, peer: Peer, req: Vacate, ch: wire.Channel) -> Vacated:
        """condor_vacate of named slots (each on its machine), or of every slot."""
        chosen: dict[int, tuple[Startd, list[Any]]] = {}
        for name in req.slots:
            startd = self._by_slot(name)
            chosen.setdefault(id(startd), (startd, []))[1].append(name)
        if not req.slots:
            chosen = {id(s): (s, []) for s in self.machines.startds}
        vacated: list[Any] = []
        for startd, names in chosen.values():
            one = Vacate(slots=names, fast=req.fast)
            vacated.extend((await startd.claims.vacate(peer, one, ch)).slots)
        return Vacated(vacated)

    async def query_slots(self, peer: Peer, req: QuerySlots, ch: wire.Channel) -> SlotAds:
        """condor_who at the simulator's address: every simulated machine's slots."""
        ads: list[Any] = []
        for startd in self.machines.startds:
            answer = await startd.runs.query_slots(peer, req, ch)
            ads.extend(wire.ads_from_packed(answer.ads, "slot ads"))
        return SlotAds(wire.pack_ads(ads))

    async def peek(self, peer: Peer, req: Peek, ch: wire.Channel) -> Reply:
        """condor_tail: asked of the machine the job runs on."""
        for startd in self.machines.startds:
            for slot in startd.table.all_slots():
                job = slot.claim.job if slot.claim is not None else None
                if job is not None and f"{job.get('ClusterId')}.{job.get('ProcId')}" == req.job:
                    return await startd.runs.peek(peer, req, ch)
        raise Refused(Refusal.NOT_FOUND, f"job {req.job} is not running here")

    def _on_machine(self, pick: Callable[[Startd], Handler]) -> Handler:
        """condor_drain: asked of one machine, which the request must name (every
        simulated machine answers at this one address)."""

        async def handle(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
            if not req.machine:
                raise Refused(
                    Refusal.BAD_REQUEST,
                    f"{len(self.machines.startds)} simulated machines answer here: "
                    "name the machine",
                )
            return await pick(self._by_slot(f"@{req.machine}"))(peer, req, ch)

        return handle

    def handlers(self) -> dict[type[Message], Handler]:
        return {
            Match: self.match,
            Matches: self.matches,
            ClaimSlot: self.claim,
            RunJob: self._on_claim(lambda s: s.runs.run),
            Deactivate: self._on_claim(lambda s: s.runs.deactivate),
            Suspend: self._on_claim(lambda s: s.runs.suspend),
            Continue: self._on_claim(lambda s: s.runs.resume),
            Release: self._on_claim(lambda s: s.claims.release),
            Vacate: self.vacate,
            QuerySlots: self.query_slots,
            Peek: self.peek,
            DrainJobs: self._on_machine(lambda s: s.drains.drain),
            CancelDrain: self._on_machine(lambda s: s.drains.cancel_drain),
        }

    # -- the machines' lives -----------------------------------------------------------------

    async def start(self, nursery: trio.Nursery) -> None:
        """Every machine's first poll (Owner to Unclaimed), then its poll loop, started
        spread over a polling interval so that the machines do not all poll at once."""
        self.nursery = nursery
        nursery.start_soon(self.alarms.run)
        count = len(self.machines.startds)
        for i, startd in enumerate(self.machines.startds):
            startd.driver.nursery = nursery
            await startd.driver.poll()
            delay = startd.driver.polling_interval * i / max(1, count)
            nursery.start_soon(self._live, startd, delay)
            startd.driver.fetcher.start(nursery)
            if i % 64 == 63:
                await trio.lowlevel.checkpoint()

    async def _live(self, startd: Startd, delay: float) -> None:
        """A machine's poll loop, until its startd stops (a drain that ends in exit):
        then it shuts down as a startd does, and leaves the pool."""
        async with trio.open_nursery() as nursery:
            await trio.sleep(delay)
            nursery.start_soon(startd.driver.poll_loop)
            await startd.stop_requested.wait()
            await startd.driver.shutdown(startd.stop_mode)
            nursery.cancel_scope.cancel()
        gone = self.machines.remove(startd)
        log.info("%s left the pool (its startd exited)", startd.table.machine.hostname)
        with trio.move_on_after(10):
            await self.collector.withdraw("Machine", gone)

    async def advertise_loop(self) -> None:
        """Every slot's ad every UPDATE_INTERVAL; in between, soon after a change, the
        ads of the slots that changed (and the dynamic slots gone withdrawn), gathered
        into one update, as a real startd updates its slots' ads."""
        full_due = trio.current_time()
        while True:
            full = trio.current_time() >= full_due
            if full:
                self.machines.prune_claims()
            ads, gone = self.machines.updates(everything=full)
            try:
                if gone:
                    await self.collector.withdraw("Machine", gone)
                if ads:
                    await self.collector.advertise_packed(ads)
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


async def _withdraw_all(sim: Simulator) -> None:
    await sim.collector.withdraw("Machine", [s.name for _, s in sim.machines.slots()])


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
            await sim.start(nursery)
            collection.started()  # the machines' slot tables live as long as the simulator
            locate.write_address(locate.sim_address_file(cfg), address)
            nursery.start_soon(sim.advertise_loop)
            slots = sum(1 for _ in sim.machines.slots())
            log.info(
                "%d simulated machines, %d slots, at %s",
                len(sim.machines.startds),
                slots,
                address,
            )
            task_status.started(address)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            await _withdraw_all(sim)
