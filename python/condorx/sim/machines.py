"""The simulated execute machines: each its own name and slot table, its slots laid out
from the configuration as a real startd's are (NUM_CPUS, MEMORY, NUM_SLOTS, SLOT_TYPE_*),
or taken from a real pool's `condor_status -l` dump (SIM_MACHINE_ADS, see `pool_dump`),
its ads built by the real startd's ad code, so the collector and negotiator see what a
real startd would advertise. All of them answer at one address.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from condorx.daemons.startd import machine as mach
from condorx.daemons.startd.slots import Slot
from condorx.daemons.startd.table import SlotTable
from condorx.language.config import Config
from condorx.sim import pool_dump
from condorx.transport.locate import execute_dir


def templated(cfg: Config, count: int) -> list[SlotTable]:
    """`count` machines laid out as the configuration lays out this one, named
    sim1.<domain>, sim2.<domain>, ..."""
    template = mach.detect(cfg, execute_dir(cfg))
    domain = template.hostname.partition(".")[2] or template.hostname
    return [
        SlotTable(cfg, dataclasses.replace(template, hostname=f"sim{i}.{domain}"))
        for i in range(1, count + 1)
    ]


def configured(cfg: Config) -> list[SlotTable]:
    """The machines the configuration asks for: SIM_MACHINE_ADS's, else SIM_MACHINES
    laid out as this one."""
    dump = cfg.get("SIM_MACHINE_ADS")
    if dump and dump.strip():
        return list(pool_dump.tables(cfg, Path(dump.strip())))
    return templated(cfg, max(1, cfg.get_int("SIM_MACHINES", 10)))


class SimMachines:
    def __init__(self, tables: list[SlotTable]) -> None:
        self.tables = tables
        self._by_name = {s.name: (t, s) for t in self.tables for s in t.all_slots()}
        # Claim id -> its slot: a run, a release or a stop finds its slot at once.
        self._by_claim: dict[str, tuple[SlotTable, Slot]] = {}
        # What the next update carries: the slots changed, and the dynamic slots gone.
        self._dirty: dict[str, tuple[SlotTable, Slot]] = {}
        self._gone: set[str] = set()

    def set_address(self, address: str) -> None:
        """Where every simulated machine answers (the simulator's one listener)."""
        for t in self.tables:
            t.machine = dataclasses.replace(t.machine, address=address)

    def slots(self) -> Iterator[tuple[SlotTable, Slot]]:
        for t in self.tables:
            for s in t.all_slots():
                yield t, s

    def named(self, name: str) -> tuple[SlotTable, Slot] | None:
        return self._by_name.get(name)

    def remember(self, table: SlotTable, slot: Slot) -> None:
        """A dynamic slot carved from one of `table`'s."""
        self._by_name[slot.name] = (table, slot)
        self._gone.discard(slot.name)

    def forget(self, slot: Slot) -> None:
        """A dynamic slot whose claim ended, gone (its ad is withdrawn)."""
        found = self._by_name.pop(slot.name, None)
        self._dirty.pop(slot.name, None)
        self._gone.add(slot.name)
        if found is not None and slot.parent is not None:
            self.touch(found[0], slot.parent)

    def touch(self, table: SlotTable, slot: Slot) -> None:
        """The slot has changed: its ad (and its parent's, whose resources a dynamic slot
        takes) goes in the next update."""
        if slot.name not in self._gone:  # a dynamic slot ending is withdrawn, not updated
            self._dirty[slot.name] = (table, slot)
        if slot.parent is not None:
            self._dirty[slot.parent.name] = (table, slot.parent)

    def claimed(self, table: SlotTable, slot: Slot) -> None:
        """The slot now has a claim (`slot.claim`)."""
        assert slot.claim is not None
        self._by_claim[slot.claim.id] = (table, slot)

    def unclaimed(self, claim_id: str) -> None:
        self._by_claim.pop(claim_id, None)

    def claimed_by(self, claim_id: str) -> tuple[SlotTable, Slot] | None:
        found = self._by_claim.get(claim_id)
        if found is None or found[1].claim is None or found[1].claim.id != claim_id:
            return None
        return found

    def ads(self) -> list[dict[str, Any]]:
        """Every simulated slot's ad, as its startd would advertise it (and nothing is
        left to update)."""
        self._dirty.clear()
        out: list[dict[str, Any]] = []
        for t in self.tables:
            t.sequence += 1
            out.extend(t.ads())
        return out

    def not_withdrawn(self, names: list[str]) -> None:
        """An update that withdrew these failed: the next one withdraws them."""
        self._gone.update(n for n in names if n not in self._by_name)

    def updates(self, everything: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
        """The ads of the slots changed since the last update (of every slot, with
        `everything`), and the names of the dynamic slots gone since; each startd's
        count of updates goes up by one."""
        changed, self._dirty = self._dirty, {}
        gone, self._gone = sorted(self._gone), set()
        if everything:
            return self.ads(), gone
        for t in {id(t): t for t, _ in changed.values()}.values():
            t.sequence += 1
        return [t.advertised(s) for t, s in changed.values()], gone
