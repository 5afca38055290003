"""The startd: advertises its slots, accepts matches and claims, and runs jobs (the
starter's work, done in-process so a short job costs a fork, not a Python start-up).

Commands, all from the pool's own daemons:
- `match` (negotiator): reserve a slot for a claim id; it lapses after MATCH_TIMEOUT.
- `claim` (schedd): take up a matched claim.
- `run` (schedd): run a job on a claim, through the claim's starter process. The reply
  streams `{"more": ...}` frames
  (`started`, then an `alive` heartbeat every STARTER_HEARTBEAT seconds) and ends with
  how the job ended, its usage, and its output files when they were transferred. The
  open connection is the job's lease: if the startd dies, the schedd sees it at once.
- `deactivate` (schedd): stop the job on a claim (soft kill, then hard after
  KILLING_TIMEOUT). `release` (schedd): give the claim up.
"""

from __future__ import annotations

import itertools
import logging
import signal
import time
from dataclasses import replace
from typing import Any

import trio

from condorx import locate, security, wire
from condorx.client.collector import CollectorClient
from condorx.client.connection import daemon_credentials
from condorx.config import Config
from condorx.daemons.server import Peer, Refused, Server
from condorx.daemons.startd import machine as mach
from condorx.daemons.startd.slots import Claim, Policy, Slot, is_owner, layout, slot_ad
from condorx.daemons.startd.starter_process import StarterProcess

log = logging.getLogger("condorx.startd")


class Startd:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.execute = locate.execute_dir(cfg)
        self.machine = mach.detect(cfg, self.execute)
        self.policy = Policy.from_config(cfg)
        self.slots = layout(cfg, self.machine)
        self.match_timeout = cfg.get_int("MATCH_TIMEOUT", 120)
        self.killing_timeout = cfg.get_int("KILLING_TIMEOUT", 30)
        self.heartbeat = cfg.get_int("STARTER_HEARTBEAT", 5)
        self.update_interval = max(1, cfg.get_int("UPDATE_INTERVAL", 300))
        self.collector = CollectorClient(cfg, daemon_credentials(cfg))
        self.changed = trio.Event()
        self.starters: dict[str, StarterProcess] = {}
        self._serial = itertools.count(1)

    # -- ads ------------------------------------------------------------------------------

    def ads(self) -> list[dict[str, Any]]:
        keyboard, console = mach.idle_seconds()
        dynamic = {
            "LoadAvg": mach.load_avg(),
            "KeyboardIdle": keyboard,
            "ConsoleIdle": console,
            "UpdateSequenceNumber": next(self._serial),
            "ClassAdLifetime": self.update_interval * 3,
        }
        out = []
        for slot in self._all_slots():
            ad = slot_ad(slot, self.machine, self.policy, dynamic)
            if slot.state == "Unclaimed" and is_owner(ad, self.policy):
                slot.enter("Owner", "Idle")
                ad["State"], ad["Activity"] = "Owner", "Idle"
            elif slot.state == "Owner" and not is_owner(ad, self.policy):
                slot.enter("Unclaimed", "Idle")
                ad["State"] = "Unclaimed"
            out.append(ad)
        return out

    def _all_slots(self) -> list[Slot]:
        return [s for p in self.slots for s in (p, *p.children)]

    async def advertise_loop(self) -> None:
        while True:
            self._expire_matches()
            wait = self.update_interval
            try:
                await self.collector.advertise(self.ads())
            except (OSError, wire.WireError) as e:
                log.warning("cannot update the collector: %s", e)
                wait = min(wait, 2)  # try again soon: the collector may be starting
            with trio.move_on_after(wait):
                await self.changed.wait()
            self.changed = trio.Event()
            await trio.sleep(0.2)  # gather a burst of changes into one update

    def _touch(self) -> None:
        self.changed.set()

    def _expire_matches(self) -> None:
        now = time.time()
        for slot in self._all_slots():
            c = slot.claim
            if c is not None and not c.claimed and c.expires <= now:
                log.info("%s: match %s was never claimed; back to Unclaimed", slot.name, c.id)
                self._unclaim(slot)

    def _unclaim(self, slot: Slot) -> None:
        slot.claim = None
        if slot.kind == "Dynamic" and slot.parent is not None:
            slot.parent.children.remove(slot)
        else:
            slot.enter("Unclaimed", "Idle")
        self._touch()

    # -- handlers -------------------------------------------------------------------------

    def _slot(self, name: Any) -> Slot:
        for s in self._all_slots():
            if s.name == name:
                return s
        raise Refused("not-found", f"no slot {name!r} here")

    def _claimed(self, claim_id: Any) -> Slot:
        for s in self._all_slots():
            if s.claim is not None and s.claim.id == claim_id:
                return s
        raise Refused("not-found", "unknown claim")

    @staticmethod
    def _pool_only(peer: Peer) -> None:
        if peer.user != security.POOL_IDENTITY:
            raise Refused("permission", "only the pool's daemons may do this")

    async def match(self, peer: Peer, req: dict[str, Any], ch: wire.Channel) -> dict[str, Any]:
        self._pool_only(peer)
        slot = self._slot(req.get("slot"))
        if slot.state != "Unclaimed" or slot.claim is not None:
            raise Refused("busy", f"{slot.name} is {slot.state}, not Unclaimed")
        if slot.kind == "Partitionable":
            slot = self._carve(slot, req.get("request") or {})
        slot.claim = Claim(
            id=str(req["claim_id"]),
            schedd=str(req.get("schedd", "")),
            user=str(req.get("user", "")),
            expires=time.time() + self.match_timeout,
        )
        slot.enter("Matched", "Idle")
        self._touch()
        return {"ok": True, "slot": slot.name}

    def _carve(self, parent: Slot, request: dict[str, Any]) -> Slot:
        cpus, memory, disk = (
            int(request.get(k) or d) for k, d in (("cpus", 1), ("memory", 1), ("disk", 1))
        )
        free = parent.free()
        if cpus > free[0] or memory > free[1] or disk > free[2]:
            raise Refused("busy", f"{parent.name} has {free} left, not {(cpus, memory, disk)}")
        n = len(parent.children) + 1
        while any(c.name.startswith(f"slot{parent.id}_{n}@") for c in parent.children):
            n += 1
        child = Slot(
            id=parent.id,
            name=f"slot{parent.id}_{n}@{self.machine.hostname}",
            kind="Dynamic",
            cpus=cpus,
            memory=memory,
            disk=disk,
            parent=parent,
        )
        parent.children.append(child)
        return child

    async def claim(self, peer: Peer, req: dict[str, Any], ch: wire.Channel) -> dict[str, Any]:
        self._pool_only(peer)
        slot = self._claimed(req.get("claim_id"))
        assert slot.claim is not None
        slot.claim.claimed = True
        slot.claim.schedd = str(req.get("schedd") or slot.claim.schedd)
        slot.claim.client_machine = str(req.get("client_machine", ""))
        slot.enter("Claimed", "Idle")
        claim = slot.claim
        peer.on_close.append(lambda: self._schedd_gone(slot, claim))
        self._touch()
        return {"ok": True, "slot": slot.name, "ad": slot_ad(slot, self.machine, self.policy, {})}

    def _schedd_gone(self, slot: Slot, claim: Claim) -> None:
        """The connection the claim was made on closed: the claim ends with it (its job,
        if one still runs, is killed), as a claim whose lease lapsed."""
        if slot.claim is not claim:
            return
        log.info(
            "%s: the schedd's connection for claim %s closed; releasing", slot.name, claim.id[:8]
        )
        starter = self.starters.pop(claim.id, None)
        self._unclaim(slot)
        if starter is not None:
            self.nursery.start_soon(starter.close)

    async def run(self, peer: Peer, req: dict[str, Any], ch: wire.Channel) -> dict[str, Any]:
        self._pool_only(peer)
        slot = self._claimed(req.get("claim_id"))
        claim = slot.claim
        assert claim is not None
        if not claim.claimed or claim.job is not None:
            raise Refused("busy", f"{slot.name} is not ready for a job")
        job = wire.ad_from_wire(req.get("job"), "job ad")
        claim.job, claim.job_start = job, time.time()
        slot.enter("Claimed", "Busy")
        self._touch()
        try:
            return await self._supervise(slot, req, ch)
        finally:
            claim.job = None
            if slot.claim is claim:
                slot.enter("Claimed", "Idle")
            self._touch()

    async def _supervise(self, slot: Slot, req: dict[str, Any], ch: wire.Channel) -> dict[str, Any]:
        """Hand the job to the claim's starter (spawned on its first job) and relay its
        frames to the schedd: started, heartbeats, then how the job ended."""
        assert slot.claim is not None
        starter = self.starters.get(slot.claim.id)
        if starter is None or not starter.alive:
            starter = self.starters[slot.claim.id] = await StarterProcess.spawn()
        request = {
            "job": req.get("job"),
            "files": req.get("files"),
            "slot": slot.name,
            "scratch": str(self.execute),
            "heartbeat": self.heartbeat,
        }
        try:
            async for frame in starter.run(request):
                if "started" in frame:
                    await ch.send(
                        {"more": {"started": frame["started"], "host": self.machine.address}}
                    )
                elif "alive" in frame or "waiting" in frame:
                    await ch.send({"more": frame})
                elif "failed" in frame:
                    return {"ok": True, "failed": frame["failed"]}
                elif "missed" in frame or "vacated" in frame:
                    return {"ok": True, **frame}
                else:
                    return {"ok": True, **frame["done"]}
        except (wire.WireError, trio.BrokenResourceError, trio.ClosedResourceError):
            # The starter died, or the schedd did (its end of this call is gone): either
            # way the run is over; its job must not outlive it.
            starter.kill_job()
            if self.starters.pop(slot.claim.id, None) is starter:
                self.nursery.start_soon(starter.close)
            raise Refused("starter", f"the run on {slot.name} was cut off") from None
        raise Refused("starter", f"the starter of {slot.name} stopped answering")

    async def deactivate(self, peer: Peer, req: dict[str, Any], ch: wire.Channel) -> dict[str, Any]:
        self._pool_only(peer)
        slot = self._claimed(req.get("claim_id"))
        assert slot.claim is not None
        starter = self.starters.get(slot.claim.id)
        if starter is None or slot.claim.job is None:
            return {"ok": True, "running": False}
        await starter.send_signal(signal.SIGTERM)
        await starter.send_signal(signal.SIGCONT)  # a suspended job must wake up to hear it
        slot.enter("Preempting", "Vacating")
        self._touch()
        claim = slot.claim

        async def hard_kill() -> None:
            await trio.sleep(self.killing_timeout)
            if slot.claim is claim and claim.job is not None:
                await starter.send_signal(signal.SIGKILL)

        self.nursery.start_soon(hard_kill)
        return {"ok": True, "running": True}

    async def suspend(self, peer: Peer, req: dict[str, Any], ch: wire.Channel) -> dict[str, Any]:
        """Stop the claim's job where it is (SIGSTOP to its whole process tree)."""
        return await self._pause(peer, req, signal.SIGSTOP, "Suspended")

    async def resume(self, peer: Peer, req: dict[str, Any], ch: wire.Channel) -> dict[str, Any]:
        """Let a suspended job go on (SIGCONT to its whole process tree)."""
        return await self._pause(peer, req, signal.SIGCONT, "Busy")

    async def _pause(
        self, peer: Peer, req: dict[str, Any], sig: int, activity: str
    ) -> dict[str, Any]:
        self._pool_only(peer)
        slot = self._claimed(req.get("claim_id"))
        assert slot.claim is not None
        starter = self.starters.get(slot.claim.id)
        if starter is None or slot.claim.job is None:
            raise Refused("not-found", f"no job is running on {slot.name}")
        await starter.send_signal(sig)
        slot.enter("Claimed", activity)
        self._touch()
        return {"ok": True}

    async def release(self, peer: Peer, req: dict[str, Any], ch: wire.Channel) -> dict[str, Any]:
        self._pool_only(peer)
        slot = self._claimed(req.get("claim_id"))
        starter = self.starters.pop(str(req.get("claim_id")), None)
        self._unclaim(slot)
        if starter is not None:
            self.nursery.start_soon(starter.close)
        return {"ok": True}

    def handlers(self) -> dict[str, Any]:
        return {
            "match": self.match,
            "claim": self.claim,
            "run": self.run,
            "deactivate": self.deactivate,
            "suspend": self.suspend,
            "continue": self.resume,
            "release": self.release,
        }

    nursery: trio.Nursery


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    startd = Startd(cfg)
    key = security.ensure_pool_key(locate.pool_key_file(cfg))
    server = Server("startd", startd.handlers(), key)
    host = locate.bind_host(cfg)
    try:
        async with trio.open_nursery() as nursery:
            startd.nursery = nursery
            port = await nursery.start(server.serve_tcp, host, cfg.get_int("STARTD_PORT", 0))
            address = f"<{locate.advertised_host(host)}:{port}>"
            startd.machine = replace(startd.machine, address=address)
            locate.write_address(locate.startd_address_file(cfg), address)
            nursery.start_soon(startd.advertise_loop)
            log.info("startd with %d slots at %s", len(startd.slots), address)
            task_status.started(address)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            for starter in startd.starters.values():
                await starter.close()
            names = [s.name for s in startd._all_slots()]
            try:
                await startd.collector.invalidate("Machine", names)
            except (OSError, wire.WireError):
                pass
