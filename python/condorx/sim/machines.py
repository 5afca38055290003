"""The simulated execute machines: each one a startd of the startd's own code (its slot
table, policy driver and request handlers), its slots laid out from the configuration as
a real startd's are (NUM_CPUS, MEMORY, NUM_SLOTS, SLOT_TYPE_*), or taken from a real
pool's `condor_status -l` dump (SIM_MACHINE_ADS, see `pool_dump`), its inputs simulated
(no keyboard, no owner's load) and its jobs run by the simulated execution backend
(`sim.starter`). All of them answer at one address; this finds the machine a request
concerns, and gathers what changed for the next update of the collector.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from condorx import record
from condorx.daemons.startd import machine as mach
from condorx.daemons.startd.driver import Driver
from condorx.daemons.startd.service import Startd
from condorx.daemons.startd.slots import Slot
from condorx.daemons.startd.starter_port import Spawn
from condorx.daemons.startd.table import SlotTable
from condorx.language.config import Config
from condorx.sim import pool_dump
from condorx.transport import wire
from condorx.transport.locate import execute_dir

Clock = Callable[[], float]


def templated(cfg: Config, count: int, clock: Clock = time.time) -> list[SlotTable]:
    """`count` machines laid out as the configuration lays out this one, named
    sim1.<domain>, sim2.<domain>, ..., on `clock` (epoch seconds)."""
    template = mach.detect(cfg, Path(execute_dir(cfg)))
    domain = template.hostname.partition(".")[2] or template.hostname
    return [
        SlotTable(cfg, record.replace(template, hostname=f"sim{i}.{domain}"), None, clock, False)
        for i in range(1, count + 1)
    ]


def configured(cfg: Config, clock: Clock = time.time) -> list[SlotTable]:
    """The machines the configuration asks for: SIM_MACHINE_ADS's, else SIM_MACHINES
    laid out as this one; on `clock` (a port: tests give a MockClock's)."""
    dump = cfg.get("SIM_MACHINE_ADS")
    if dump and dump.strip():
        return list(pool_dump.tables(cfg, Path(dump.strip()), clock))
    return templated(cfg, max(1, cfg.get_int("SIM_MACHINES", 10)), clock)


class SimMachines:
    def __init__(self, cfg: Config, tables: list[SlotTable], spawn: Spawn) -> None:
        self.startds: list[Startd] = []
        self._by_host: dict[str, Startd] = {}
        self._by_name: dict[str, Startd] = {}  # a dump's slots may be named otherwise
        # Claim id -> the machine it is for: a run, a release or a stop finds it at once.
        self._by_claim: dict[str, Startd] = {}
        # What the next update carries: the slots changed, and the dynamic slots gone.
        self._dirty: dict[str, tuple[SlotTable, Slot]] = {}
        self._gone: set[str] = set()
        self.changed: Callable[[], None] = lambda: None  # a port: the advertiser's wake-up
        for table in tables:
            startd = Startd(cfg, Driver(cfg, table=table), spawn)
            startd.driver.touched = functools.partial(self.touch, startd)
            startd.claims.on_claim = functools.partial(self.note_claim, startd=startd)
            self.startds.append(startd)
            self._by_host[table.machine.hostname] = startd
            for slot in table.slots:
                self._by_name[slot.name] = startd

    def set_address(self, address: str) -> None:
        """Where every simulated machine answers (the simulator's one listener)."""
        for s in self.startds:
            s.table.machine = record.replace(s.table.machine, address=address)

    def slots(self) -> Iterator[tuple[SlotTable, Slot]]:
        for s in self.startds:
            for slot in s.table.all_slots():
                yield s.table, slot

    # -- finding a request's machine ---------------------------------------------------------

    def of_slot(self, name: object) -> Startd | None:
        """The machine of a slot name (a dynamic slot's, too: named for its machine)."""
        if not isinstance(name, str):
            return None
        return self._by_name.get(name) or self._by_host.get(name.rpartition("@")[2])

    def of_claim(self, claim_id: object) -> Startd | None:
        return self._by_claim.get(claim_id) if isinstance(claim_id, str) else None

    def note_claim(self, claim_id: str, startd: Startd) -> None:
        self._by_claim[claim_id] = startd

    def prune_claims(self) -> None:
        """Forget the claims that are over (each machine's are in its slots)."""
        live: dict[str, Startd] = {}
        for s in self.startds:
            for slot in s.table.all_slots():
                for claim in (slot.claim, slot.next_claim):
                    if claim is not None:
                        live[claim.id] = s
        self._by_claim = live

    def remove(self, startd: Startd) -> list[str]:
        """A machine whose startd exited (a drain that ends in exit): the names of its
        slots, to withdraw."""
        self.startds.remove(startd)
        self._by_host.pop(startd.table.machine.hostname, None)
        self._by_name = {n: s for n, s in self._by_name.items() if s is not startd}
        self._by_claim = {c: s for c, s in self._by_claim.items() if s is not startd}
        names = {s.name for s in startd.table.all_slots()}
        self._dirty = {n: d for n, d in self._dirty.items() if n not in names}
        return sorted(names)

    # -- what the collector hears -------------------------------------------------------------

    def touch(self, startd: Startd, slot: Slot | None) -> None:
        """The slot has changed (every slot of the machine, for None): its ad, and its
        parent's, whose resources a dynamic slot takes, go in the next update; a dynamic
        slot whose claim ended is withdrawn instead."""
        table = startd.table
        for s in table.all_slots() if slot is None else (slot,):
            parent = s.parent
            if parent is not None and s not in parent.children:
                self._dirty.pop(s.name, None)
                self._gone.add(s.name)
            else:
                self._dirty[s.name] = (table, s)
                self._gone.discard(s.name)
            if parent is not None:
                self._dirty[parent.name] = (table, parent)
        self.changed()

    def ads(self) -> list[bytes]:
        """Every simulated slot's ad, as its startd would advertise it, each packed alone
        (and nothing is left to update)."""
        self._dirty.clear()
        out: list[bytes] = []
        for s in self.startds:
            out.extend(s.packed_ads())
        return out

    def not_withdrawn(self, names: list[str]) -> None:
        """An update that withdrew these failed: the next one withdraws them."""
        live = {slot.name for _, slot in self.slots()}
        self._gone.update(n for n in names if n not in live)

    def updates(self, everything: bool = False) -> tuple[list[bytes], list[str]]:
        """The ads of the slots changed since the last update (of every slot, with
        `everything`), each packed alone, and the names of the dynamic slots gone since;
        each startd's count of updates goes up by one."""
        changed, self._dirty = self._dirty, {}
        gone, self._gone = sorted(self._gone), set()
        if everything:
            return self.ads(), gone
        # Each machine's changed slots together: its readings are gathered once.
        by_table: dict[int, tuple[SlotTable, list[Slot]]] = {}
        for t, s in changed.values():
            by_table.setdefault(id(t), (t, []))[1].append(s)
        for t, _ in by_table.values():
            t.sequence += 1
        ads = [ad for t, slots in by_table.values() for ad in t.packed_ads(slots)]
        ads.extend(wire.dumps(ad) for t, slots in by_table.values() for ad in t.private_ads(slots))
        return ads, gone
