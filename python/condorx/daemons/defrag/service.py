"""condor_defrag: drains partitionable machines, a few an hour, so that whole machines come
free for whole-machine jobs, as HTCondor's defrag daemon does (its knobs, its choices,
its ad in the collector). It works through the startd's own drain (`DrainJobs`): each
drain it starts resumes the machine once done, and carries the reason "Defrag <name>",
which is how it knows its own drains from an administrator's.

Every DEFRAG_INTERVAL it counts the machines draining (its own) and the whole ones
(DEFRAG_WHOLE_MACHINE_EXPR), cancels its drains that DEFRAG_CANCEL_REQUIREMENTS picks
(by default: machines already whole), and drains as many as the hourly rate allows
(`policy`). Its ad (MyType "Defrag") goes to the collector every DEFRAG_UPDATE_INTERVAL
and after each poll.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.client.collector import CollectorClient
from condorx.daemons.core import daemon_stats
from condorx.daemons.core.advertiser import Advertiser
from condorx.daemons.core.server import Server
from condorx.daemons.defrag import policy
from condorx.daemons.defrag.record import DrainLog, Stats
from condorx.language.config import Config, ConfigError
from condorx.transport import locate
from condorx.transport.connection import Address, call, daemon_credentials
from condorx.transport.peer import PEER_FAILURES, why
from condorx.transport.protocol.startd import CancelDrain, DrainJobs

log = logging.getLogger("condorx.defrag")

SCHEDULES = ("graceful", "quick", "fast")
# A drain's check, as HTCondor's defrag writes it: the machine's expected completion and
# badput may slip this much (and the badput grow by a quarter) before it refuses.
SLIPPAGE = 1200
BADPUT_GROWTH = 1.25


class Defrag:
    def __init__(self, cfg: Config, wall: Callable[[], float] = time.time) -> None:
        self.cfg = cfg
        self.wall = wall
        self.creds = daemon_credentials(cfg)
        self.collector = CollectorClient(cfg, self.creds)
        name = cfg.get("DEFRAG_NAME") or (cfg.local_name or "defrag")
        self.name = name if "@" in name else f"{name}@{locate.advertised_host('')}"
        self.interval = cfg.get_int("DEFRAG_INTERVAL", 600)
        self.rates = policy.Rates.of(
            max(0.0, cfg.get_float("DEFRAG_DRAINING_MACHINES_PER_HOUR", 0.0)),
            max(1, self.interval),
        )
        self.limits = policy.Limits(
            max(-1, cfg.get_int("DEFRAG_MAX_CONCURRENT_DRAINING", -1)),
            max(-1, cfg.get_int("DEFRAG_MAX_WHOLE_MACHINES", -1)),
        )
        self.schedule = (cfg.get("DEFRAG_DRAINING_SCHEDULE") or "graceful").lower()
        if self.schedule not in SCHEDULES:
            raise ConfigError(
                f"DEFRAG_DRAINING_SCHEDULE: invalid draining schedule {self.schedule}"
            )
        mine = f'(DrainReason is undefined || DrainReason == "Defrag {self.name}")'
        whole = _expr(cfg, "DEFRAG_WHOLE_MACHINE_EXPR", "Cpus == TotalSlotCpus")
        self.whole = f"({whole}) && {policy.BASE_SLOT} && {mine}"
        self.draining = f"{policy.BASE_SLOT} && Draining && {mine}"
        wanted = _expr(cfg, "DEFRAG_REQUIREMENTS", "")
        self.candidates = f"{policy.BASE_SLOT} && Draining =!= true" + (
            f" && ({wanted})" if wanted else ""
        )
        cancel = _expr(cfg, "DEFRAG_CANCEL_REQUIREMENTS", "")
        self.cancel = f"{self.draining} && ({cancel})" if cancel else None
        rank = _expr(cfg, "DEFRAG_RANK", "")
        self.rank = ExprTree(rank) if rank else None
        start = _expr(cfg, "DEFRAG_DRAINING_START_EXPR", "")
        self.start = start if start and start.lower() != "false" else None
        self.update_interval = cfg.get_int("DEFRAG_UPDATE_INTERVAL", 300)
        self.last_poll = 0
        self.prev_whole: set[str] = set()
        self.prev_draining: set[str] = set()
        self.stats = Stats()
        self.recent = DrainLog()
        self.rng = random.Random()
        self.address = ""
        self.started = int(wall())
        self.advertiser: Advertiser | None = None

    async def loop(self) -> None:
        if self.interval <= 0:
            log.info("DEFRAG_INTERVAL=%d, so no pool defragmentation will be done", self.interval)
            return
        log.info("Will evaluate defragmentation policy every DEFRAG_INTERVAL=%d s", self.interval)
        while True:
            try:
                await self.poll()
            except PEER_FAILURES as e:
                log.warning("defragmentation poll failed: %s", why(e))
            if self.advertiser is not None:
                self.advertiser.poke()
            await trio.sleep(self.interval)

    async def poll(self) -> None:
        now = int(self.wall())
        prev, self.last_poll = self.last_poll, now
        n = self.rates.to_drain(prev, now, self.interval)
        draining = policy.machines(await self.collector.query_ads("machine", self.draining))
        whole = policy.machines(await self.collector.query_ads("machine", self.whole))
        self.stats.machines_draining, self.stats.whole_machines = len(draining), len(whole)
        log.info(
            "There are currently %d draining and %d whole machines.", len(draining), len(whole)
        )
        self.stats.arrived(len(whole - self.prev_whole) + len(self.prev_draining - draining), now)
        self.prev_whole, self.prev_draining = whole, draining
        cancelled = await self._cancel()
        reason = policy.why_not(n, self.rates.per_hour, self.limits, len(draining), len(whole))
        if reason is not None:
            log.info("Doing nothing, because %s.", reason)
            return
        log.info("Looking for %d machines to drain.", n)
        slots = await self.collector.query_ads("machine", self.candidates)
        ranked = policy.ranked(slots, self.rank, self.rng)
        drained = 0
        for slot in policy.eligible(ranked, whole, cancelled):
            if await self._drain(slot):
                drained += 1
                if drained >= n:
                    break
        log.info("Drained %d machines (wanted to drain %d machines).", drained, n)

    async def _cancel(self) -> set[str]:
        if self.cancel is None:
            return set()
        cancelled: set[str] = set()
        slots = await self.collector.query_ads("machine", self.cancel)
        for slot in policy.ranked(slots, self.rank, self.rng):
            machine = policy.machine_of(str(slot.get("Name")))
            if machine in cancelled:
                continue
            cancelled.add(machine)
            log.info("Cancel draining of %s.", slot.get("Name"))
            try:
                await call(_address(slot), self.creds, CancelDrain(machine=machine))
            except PEER_FAILURES as e:
                log.warning("Unable to cancel draining on %s: %s", machine, why(e))
            self.recent.cancel(machine, int(self.wall()))
        log.info("Cancelled draining of %d whole machines.", len(cancelled))
        return cancelled

    async def _drain(self, slot: ClassAd) -> bool:
        name = str(slot.get("Name"))
        log.info("Initiating %s draining of %s.", self.schedule, name)
        request = DrainJobs(
            self.schedule,
            "resume",
            f"Defrag {self.name}",
            _check(slot, self.schedule),
            machine=policy.machine_of(name),
            start=self.start,
        )
        self.recent.drain(name, self.schedule, int(self.wall()))
        try:
            await call(_address(slot), self.creds, request)
        except PEER_FAILURES as e:
            log.warning("Failed to send request to drain %s: %s", name, why(e))
            self.stats.drain_failures += 1
            return False
        self.stats.drain_successes += 1
        return True

    def ad(self) -> dict[str, Any]:
        return {
            "MyType": "Defrag",
            "Name": self.name,
            "MyAddress": self.address,
            "Machine": locate.advertised_host(""),
            "DaemonStartTime": self.started,
            "ClassAdLifetime": max(self.update_interval, self.interval) * 3,
            **self.stats.ad(),
            **self.recent.ad(),
            **daemon_stats.ad(),
        }


def _expr(cfg: Config, knob: str, default: str) -> str:
    """An expression knob, checked to parse (an error names it, as HTCondor's EXCEPT)."""
    text = (cfg.get(knob) or default).strip()
    if text:
        try:
            ExprTree(text)
        except ValueError as e:
            raise ConfigError(f"Invalid expression for {knob}: {text} ({e})") from None
    return text


def _address(slot: ClassAd) -> Address:
    address = slot.get("MyAddress")
    if not isinstance(address, str):
        raise OSError(f"{slot.get('Name')} advertises no address")
    return Address.parse(address)


def _check(slot: ClassAd, schedule: str) -> str | None:
    """The drain's check, as HTCondor's defrag sends it: the machine's expected
    completion and badput must not have grown much since its ad. A startd that does
    not publish them is drained without one."""
    kind = "Graceful" if schedule == "graceful" else "Quick"
    completion = slot.get(f"ExpectedMachine{kind}DrainingCompletion")
    badput = slot.get(f"ExpectedMachine{kind}DrainingBadput")
    if not isinstance(completion, int) or not isinstance(badput, int):
        return None
    return (
        f"ExpectedMachine{kind}DrainingCompletion <= {completion + SLIPPAGE} && "
        f"ExpectedMachine{kind}DrainingBadput <= {int(BADPUT_GROWTH * badput) + SLIPPAGE}"
    )


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    defrag = Defrag(cfg)
    server = Server.for_daemon("defrag", {}, cfg)
    async with trio.open_nursery() as nursery:
        defrag.address = await server.listen(
            nursery,
            cfg.get_int("DEFRAG_PORT", 0),
            address_file=Path(locate.defrag_address_file(cfg)),
        )
        defrag.advertiser = Advertiser(
            defrag.collector, lambda: [defrag.ad()], defrag.update_interval
        )
        await nursery.start(defrag.advertiser.run)
        nursery.start_soon(defrag.loop)
        log.info("defrag %s at %s", defrag.name, defrag.address)
        task_status.started(defrag.address)
