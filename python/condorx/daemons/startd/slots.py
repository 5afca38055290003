"""The startd's slots: how the machine is divided (NUM_SLOTS, SLOT_TYPE_n,
NUM_SLOTS_TYPE_n, SLOT_TYPE_n_PARTITIONABLE), custom resources (GPUs) among them, and
each slot's state, claim and clocks.
The rules that move a slot from state to state are in `states`; its ad is built in `ads`.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.startd.machine import Machine, Resource
from condorx.daemons.startd.states import Activity, Flags, State
from condorx.language.config import Config

# The activities in which a claimed slot's job is running (its run time counts) and
# suspended (its suspension time counts).
RUNNING = (Activity.BUSY, Activity.RETIRING)
SUSPENDED = (Activity.SUSPENDED,)


@dataclass
class Claim:
    id: str
    schedd: str  # the schedd's address, where job exits are reported
    user: str
    client_machine: str = ""
    matched_at: float = 0.0  # when the negotiator's match arrived (MATCH_TIMEOUT runs)
    claimed_at: float = 0.0  # when the schedd claimed it (CLAIM_WORKLIFE runs)
    claimed: bool = False
    job: ClassAd | None = None  # the job running on the claim, if any
    job_start: float = 0.0
    rank: float = 0.0  # the slot's RANK of the job: CurrentRank
    run_time: float = 0.0  # TotalClaimRunTime, before the current activity
    suspend_time: float = 0.0  # TotalClaimSuspendTime, before the current activity
    job_run_time: float = 0.0  # TotalJobRunTime, before the current activity
    job_suspend_time: float = 0.0  # TotalJobSuspendTime, before the current activity
    evicted: str = ""  # why the startd is taking the job off (its run reports "vacated")
    notify: Any = None  # the schedd's run channel while a job runs, for notices
    fetched: str = ""  # the hook keyword of a claim made for fetched work
    pending_job: ClassAd | None = None  # fetched work waiting for the slot (preemption)
    last_job: ClassAd | None = None  # the claim's latest job, for EVICT_CLAIM
    activations: int = 0  # the jobs run on the claim (CLAIM_WORKLIFE counts from the first)
    while_draining: bool = False  # taken by a drain's START (condor_drain -start)
    limits: str = ""  # the concurrency limits it was matched under (the ad shows them)
    account: str = ""  # the accounting name it was matched for (before its first job)


@dataclass
class Slot:
    id: int
    name: str
    kind: str  # Static, Partitionable or Dynamic
    cpus: int
    memory: int
    disk: int
    # "When the startd is first spawned, the machine it represents enters the Owner state."
    state: State = State.OWNER
    activity: Activity = Activity.IDLE
    entered_state: float = 0.0
    entered_activity: float = 0.0
    claim: Claim | None = None
    next_claim: Claim | None = None  # a preempting match waiting for this claim to end
    parent: Slot | None = None
    children: list[Slot] = field(default_factory=list)
    flags: Flags = field(default_factory=Flags)
    killing_since: float = 0.0  # when the hard kill was sent (KILLING_TIMEOUT runs)
    carvings: int = 0  # a partitionable slot's dynamic slots carved since the startd began
    # A partitionable slot's consumption policy: what a match takes of each resource, by
    # resource name (Consumption<name> in its ad); None without one.
    consumption: dict[str, str] | None = None
    weight: str | None = None  # SLOT_TYPE_<n>_SLOT_WEIGHT (its dynamic slots' too)
    cpu_busy_since: float | None = None  # since when CPUBusy has been true (CpuBusyTime)
    # Custom resources (MACHINE_RESOURCE_<name>): how many of each the slot holds, and
    # which ones, for those the configuration names (AssignedGPUs).
    custom: dict[str, int] = field(default_factory=dict)
    assigned: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The claim id the slot offers in its private ad (none yet when empty): the
    # negotiator hands it to the schedd, whose claim it authorizes.
    offer: str = field(default="", repr=False)
    # The policy's view of the slot and the ad it was made from (`SlotTable.view`), kept
    # so that the next view sets only what changed.
    view_kept: Any = field(default=None, repr=False, compare=False)
    # The fixed part of its ad as last advertised, packed (`SlotTable.packed_ads`).
    packed_kept: Any = field(default=None, repr=False, compare=False)

    def enter(self, state: State, activity: Activity, now: float) -> None:
        """Move to a state and activity at `now`, banking the time spent in the last."""
        self._bank(now)
        if state != self.state:
            self.state, self.entered_state = state, now
        if activity != self.activity or now == self.entered_state:
            self.activity, self.entered_activity = activity, now

    def _bank(self, now: float) -> None:
        c = self.claim
        if c is None or self.state != State.CLAIMED:
            return
        spent = max(0.0, now - self.entered_activity)
        if self.activity in RUNNING:
            c.run_time += spent
            c.job_run_time += spent
        elif self.activity in SUSPENDED:
            c.suspend_time += spent
            c.job_suspend_time += spent

    def totals(self, now: float) -> dict[str, int]:
        """TotalClaimRunTime, TotalClaimSuspendTime, TotalJobRunTime, TotalJobSuspendTime."""
        c = self.claim
        if c is None:
            return {}
        spent = max(0.0, now - self.entered_activity) if self.state == State.CLAIMED else 0.0
        run = spent if self.activity in RUNNING else 0.0
        sus = spent if self.activity in SUSPENDED else 0.0
        out = {
            "TotalClaimRunTime": int(c.run_time + run),
            "TotalClaimSuspendTime": int(c.suspend_time + sus),
        }
        if c.job is not None:
            out["TotalJobRunTime"] = int(c.job_run_time + run)
            out["TotalJobSuspendTime"] = int(c.job_suspend_time + sus)
        return out

    def free(self) -> tuple[int, int, int]:
        """What a partitionable slot has left to carve."""
        used = [(c.cpus, c.memory, c.disk) for c in self.children]
        return (
            self.cpus - sum(u[0] for u in used),
            self.memory - sum(u[1] for u in used),
            self.disk - sum(u[2] for u in used),
        )

    def free_custom(self) -> dict[str, int]:
        """How many of each custom resource a partitionable slot has left to carve."""
        return {
            name: amount - sum(c.custom.get(name, 0) for c in self.children)
            for name, amount in self.custom.items()
        }

    def free_ids(self, name: str) -> list[str]:
        """Which of a named custom resource a partitionable slot has left, in order."""
        taken = {i for c in self.children for i in c.assigned.get(name, ())}
        return [i for i in self.assigned.get(name, ()) if i not in taken]


@dataclass(frozen=True)
class SlotType:
    cpus: float | None  # a share (fraction) or None for an equal split
    memory: float | None
    disk: float | None
    absolute: dict[str, int]
    partitionable: bool
    # Custom resources, by lower-case name: a share, or an amount in `absolute`; the
    # others get `rest` (a bare share in the type: "gpus=1, 25%"), else an equal split.
    custom: dict[str, float] = field(default_factory=dict)
    rest: float | None = None


def layout(cfg: Config, m: Machine) -> list[Slot]:
    """The slots the configuration asks for, numbered from 1."""
    types: list[tuple[SlotType, int]] = []
    policies: list[dict[str, str] | None] = []
    weights: list[str | None] = []
    custom = {r.name.lower() for r in m.resources}
    # A type its SLOT_TYPE_<n> does not describe is HTCondor's "auto": the machine
    # shared equally among such slots (here: all of it; HTCondor's shares what the
    # described types leave).
    auto = sum(
        cfg.get_int(f"NUM_SLOTS_TYPE_{n}", 0)
        for n in range(1, 10)
        if not cfg.get(f"SLOT_TYPE_{n}") and cfg.get_int(f"NUM_SLOTS_TYPE_{n}", 0) > 0
    )
    for n in range(1, 10):
        count = cfg.get_int(f"NUM_SLOTS_TYPE_{n}", 0)
        if count > 0:
            spec = cfg.get(f"SLOT_TYPE_{n}") or f"1/{auto}"
            part = cfg.get_bool(f"SLOT_TYPE_{n}_PARTITIONABLE", False)
            types.append((_parse_type(spec, part, custom), count))
            policies += [consumption_policy(cfg, n, m) if part else None] * count
            weights += [cfg.get(f"SLOT_TYPE_{n}_SLOT_WEIGHT")] * count
    if not types:
        count = cfg.get_int("NUM_SLOTS", m.cpus)
        share = 1.0 / max(1, count)
        types.append((SlotType(share, share, share, {}, False), max(1, count)))
    slots: list[Slot] = []
    total = sum(count for _, count in types)
    for st, count in types:
        for _ in range(count):
            i = len(slots) + 1
            slots.append(
                Slot(
                    id=i,
                    name=f"slot{i}@{m.slot_suffix}",
                    kind="Partitionable" if st.partitionable else "Static",
                    cpus=_amount(st, "cpus", st.cpus, m.cpus),
                    memory=_amount(st, "memory", st.memory, m.memory_mb),
                    disk=_amount(st, "disk", st.disk, m.disk_kb),
                )
            )
    _share_custom(slots, [st for st, count in types for _ in range(count)], m.resources, total)
    for slot, policy, weight in zip(slots, policies, weights, strict=False):
        slot.consumption, slot.weight = policy, weight
    return slots


def consumption_policy(cfg: Config, n: int, m: Machine) -> dict[str, str] | None:
    """SLOT_TYPE_<n>_CONSUMPTION_POLICY (else CONSUMPTION_POLICY): what a match takes of
    each resource, SLOT_TYPE_<n>_CONSUMPTION_<name> else CONSUMPTION_<name> (the
    parameter table's quantized requests for Cpus, Memory and Disk; a custom resource's
    request, 0 when the job makes none), as HTCondor's startd reads them."""
    on = cfg.get_bool(
        f"SLOT_TYPE_{n}_CONSUMPTION_POLICY", cfg.get_bool("CONSUMPTION_POLICY", False)
    )
    if not on:
        return None
    out: dict[str, str] = {}
    for name in ("Cpus", "Memory", "Disk", *(r.name for r in m.resources)):
        text = cfg.get(f"SLOT_TYPE_{n}_CONSUMPTION_{name}") or cfg.get(f"CONSUMPTION_{name}")
        out[name] = text or (
            f"ifthenelse(target.Request{name} =?= undefined, 0, target.Request{name})"
        )
    return out


def _share_custom(
    slots: list[Slot], types: list[SlotType], resources: tuple[Resource, ...], total: int
) -> None:
    """Each custom resource among the slots, in slot order, never more than there is: as
    each slot's type asks, else an equal split (the remainder to the first slots)."""
    for r in resources:
        key, left, ids = r.name.lower(), r.count, list(r.ids)
        for n, (slot, st) in enumerate(zip(slots, types, strict=True)):
            if key in st.absolute:
                want = st.absolute[key]
            elif key in st.custom or st.rest is not None:
                want = int(r.count * st.custom.get(key, st.rest or 0.0))
            else:
                want = r.count // total + (1 if n < r.count % total else 0)
            give = max(0, min(want, left))
            left -= give
            slot.custom[r.name] = give
            if r.ids:
                slot.assigned[r.name], ids = tuple(ids[:give]), ids[give:]


def _amount(st: SlotType, name: str, share: float | None, total: int) -> int:
    if name in st.absolute:
        return st.absolute[name]
    return max(1, int(total * (share if share is not None else 1.0)))


_NAMES = {
    "cpus": "cpus",
    "c": "cpus",
    "cpu": "cpus",
    "memory": "memory",
    "mem": "memory",
    "m": "memory",
    "ram": "memory",
    "disk": "disk",
    "d": "disk",
}


def _parse_type(spec: str, partitionable: bool, custom: Collection[str] = ()) -> SlotType:
    """SLOT_TYPE_n: `cpus=2, memory=50%, gpus=1, 25%` (a bare share is every resource
    not named); `custom` is the machine's custom resources' names, in lower case."""
    shares: dict[str, float | None] = {"cpus": None, "memory": None, "disk": None}
    absolute: dict[str, int] = {}
    custom_shares: dict[str, float] = {}
    rest: float | None = None
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        key, eq, value = part.partition("=")
        if not eq:
            rest = _share(key)
            continue
        key, value = key.strip().lower(), value.strip()
        name = _NAMES.get(key) or (key if key in custom else None)
        if name is None or value.lower() == "auto":
            continue
        if value.endswith("%") or "/" in value:
            if name in shares:
                shares[name] = _share(value)
            else:
                custom_shares[name] = _share(value)
        elif re.fullmatch(r"\d+", value):
            absolute[name] = int(value)
    cpus, memory, disk = (rest if shares[k] is None else shares[k] for k in shares)
    return SlotType(cpus, memory, disk, absolute, partitionable, custom_shares, rest)


def _share(text: str) -> float:
    text = text.strip()
    if text.endswith("%"):
        return float(text[:-1]) / 100
    if "/" in text:
        a, _, b = text.partition("/")
        return float(a) / float(b)
    return float(text)
