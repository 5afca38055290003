"""A real pool as simulated machines: the slot ads of a `condor_status -l` dump
(SIM_MACHINE_ADS), one simulated machine for each `Machine` they name.

A machine keeps its slots as the dump shows them: its static slots, and its
partitionable slots whole (their `TotalSlotCpus`, `TotalSlotMemory`, `TotalSlotDisk`),
the dynamic slots carved from them at the moment of the dump being left out; the pool
starts empty. Each slot advertises every attribute of its dumped ad (its platform, its
custom attributes, its own START and RANK) except what describes that moment (its
state, its claim and job, its children, the collector's bookkeeping), which the
simulator says itself as a startd would.

What it leaves out: resources other than cpus, memory and disk are advertised as the
dump has them but not divided among dynamic slots (a slot with GPUs matches jobs that
ask for them, however many run there).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from condorx import record
from condorx.classad import ClassAd
from condorx.daemons.startd import machine as mach
from condorx.daemons.startd.ads import Measures
from condorx.daemons.startd.slots import Slot
from condorx.daemons.startd.table import SlotTable
from condorx.language.config import Config
from condorx.language.config.errors import ConfigError
from condorx.sim import ad_dump
from condorx.transport import wire

# Attributes of that moment, by name and by prefix (compared without case).
_MOMENT = frozenset(
    n.lower()
    for n in (
        "ClientMachine JobId GlobalJobId JobStart JobUniverse CurrentRank PublicClaimId "
        "PublicClaimIds ClaimId AccountingGroup RetirementTimeRemaining NumDynamicSlots "
        "TotalJobRunTime TotalJobSuspendTime TotalClaimRunTime TotalClaimSuspendTime "
        "LastHeardFrom MyCurrentTime AuthenticatedIdentity AuthenticationMethod "
        "MyAddress StartdIpAddr AddressV1 UpdateSequenceNumber UpdatesTotal UpdatesSequenced "
        "UpdatesLost UpdatesHistory UpdatesInitial DaemonStartTime DaemonLastReconfigTime "
        "State Activity EnteredCurrentState EnteredCurrentActivity LoadAvg CondorLoadAvg "
        "TotalLoadAvg TotalCondorLoadAvg NumPids ImageSize Requirements"
    ).split()
)
_MOMENT_PREFIXES = ("remote", "child", "preempting", "claim", "jobpreempt", "dynamicslot")
# The slot's own policy, advertised in place of the configuration's.
POLICY = ("Start", "Rank", "IsOwner", "MaxJobRetirementTime")


@dataclasses.dataclass
class DumpedSlot:
    id: int
    kind: str  # Static or Partitionable
    cpus: int
    memory: int
    disk: int
    attrs: dict[str, Any]  # as the dump has them, on the wire
    policy: dict[str, wire.Expr]  # POLICY's expressions the dump has


@dataclasses.dataclass
class DumpedMachine:
    machine: mach.Machine
    slots: list[DumpedSlot]


def load(path: Path) -> list[DumpedMachine]:
    """The machines of a dump, in the order the dump first names them; ConfigError
    naming the file and the ad when it cannot be used."""
    try:
        ads = ad_dump.read(path)
    except ad_dump.DumpError as e:
        raise ConfigError(f"SIM_MACHINE_ADS: {e}") from None
    machines: dict[str, DumpedMachine] = {}
    for n, ad in enumerate(ads, 1):
        if ad.get("MyType") not in (None, "Machine") or ad.get("SlotType") == "Dynamic":
            continue
        slot = _slot(ad, f"{path}, ad {n}")
        host = _text(ad, "Machine", f"{path}, ad {n}")
        if host not in machines:
            machines[host] = DumpedMachine(_machine(ad, host), [])
        machines[host].slots.append(slot)
    if not machines:
        raise ConfigError(f"SIM_MACHINE_ADS: {path} has no slot ads (condor_status -l)")
    for m in machines.values():
        m.slots.sort(key=lambda s: s.id)
        cpus = sum(s.cpus for s in m.slots)
        memory = sum(s.memory for s in m.slots)
        m.machine = record.replace(
            m.machine,
            cpus=max(m.machine.cpus, cpus),
            memory_mb=max(m.machine.memory_mb, memory),
        )
    return list(machines.values())


def _slot(ad: ClassAd, where: str) -> DumpedSlot:
    partitionable = ad.get("PartitionableSlot") is True or ad.get("SlotType") == "Partitionable"
    kind = "Partitionable" if partitionable else "Static"
    whole = "TotalSlot" if partitionable else ""

    def amount(name: str) -> int:
        value = ad.get(f"{whole}{name}") if whole else None
        if not isinstance(value, int | float) or isinstance(value, bool):
            value = ad.get(name)
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"SIM_MACHINE_ADS: {where}: {name} is not a number")
        return max(1, int(value))

    slot_id = ad.get("SlotID")
    if not isinstance(slot_id, int) or isinstance(slot_id, bool):
        raise ConfigError(f"SIM_MACHINE_ADS: {where}: SlotID is not an integer")
    policy = {name: wire.Expr(str(ad.lookup(name))) for name in POLICY if name in ad}
    skip = _MOMENT | {name.lower() for name in POLICY}
    attrs = {
        name: wire.value_to_wire(ad[name])
        for name in ad.keys()
        if name.lower() not in skip and not name.lower().startswith(_MOMENT_PREFIXES)
    }
    cpus, memory, disk = amount("Cpus"), amount("Memory"), amount("Disk")
    return DumpedSlot(slot_id, kind, cpus, memory, disk, attrs, policy)


def _text(ad: ClassAd, name: str, where: str) -> str:
    value = ad.get(name)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"SIM_MACHINE_ADS: {where}: {name} is not a string")
    return value


def _machine(ad: ClassAd, host: str) -> mach.Machine:
    def number(name: str) -> int:
        value = ad.get(name)
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return int(value) if ok else 0

    return mach.Machine(
        hostname=host,
        arch=str(ad.get("Arch") or "X86_64"),
        opsys=str(ad.get("OpSys") or "LINUX"),
        cpus=number("TotalCpus"),
        memory_mb=number("TotalMemory"),
        disk_kb=number("TotalDisk"),
        uid_domain=str(ad.get("UidDomain") or host),
        fs_domain=str(ad.get("FileSystemDomain") or host),
    )


class DumpedTable(SlotTable):
    """A dumped machine's slot table: its slots as the dump has them, each advertising
    the dump's attributes under what the simulator says of it."""

    def __init__(
        self, cfg: Config, dumped: DumpedMachine, clock: Callable[[], float] = time.time
    ) -> None:
        slots = [
            Slot(
                id=s.id,
                name=str(s.attrs.get("Name") or f"slot{s.id}@{dumped.machine.hostname}"),
                kind=s.kind,
                cpus=s.cpus,
                memory=s.memory,
                disk=s.disk,
            )
            for s in dumped.slots
        ]
        super().__init__(cfg, dumped.machine, slots, clock, measured=False)
        self.dumped = {s.id: s for s in dumped.slots}

    def packs_apart(self) -> bool:
        """Never: the dump's attributes give way to every name the live ad says, its
        readings too, so the dumped part is not known before the readings are."""
        return False

    def _ad(self, slot: Slot, measures: Measures) -> dict[str, Any]:
        live = super()._ad(slot, measures)
        dumped = self.dumped.get(slot.id)
        if dumped is None:
            return live
        said = {name.lower() for name in live}
        ad = {k: v for k, v in dumped.attrs.items() if k.lower() not in said}
        ad.update(live)
        policy = dict(dumped.policy)
        start = policy.pop("Start", None)
        if start is not None and live["START"] != wire.Expr("false"):  # not while Matched
            ad["Start"] = ad["START"] = start
        ad.update(policy)
        return ad


def tables(cfg: Config, path: Path, clock: Callable[[], float] = time.time) -> Iterator[SlotTable]:
    for dumped in load(path):
        yield DumpedTable(cfg, dumped, clock)
