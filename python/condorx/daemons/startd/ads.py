"""A slot's ClassAd (manual 3.5.1): what the machine is, what state the slot is in,
what its policy says, and, while claimed, who holds it and for how long.

Also the administrator's own attributes: STARTD_ATTRS (and its older name STARTD_EXPRS)
list configuration names whose values (ClassAd expressions) join every slot's ad, a
`SLOT<N>_<NAME>` value overriding `<NAME>` for slot N; and STARTD_SLOT_ATTRS (older
names STARTD_SLOT_EXPRS, STARTD_VM_EXPRS) list attributes of each slot that every slot
publishes as `slot<N>_<Attr>` (and `vm<N>_<Attr>` for STARTD_VM_EXPRS, as the seed's
two-slot example reads them), so one slot's policy can speak of another's state.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass, field
from typing import Any

from condorx import version
from condorx.classad import ClassAd
from condorx.daemons.core import daemon_stats
from condorx.daemons.startd.inputs import Inputs, clock
from condorx.daemons.startd.machine import Machine
from condorx.daemons.startd.policy import Policy
from condorx.daemons.startd.slots import Slot
from condorx.daemons.startd.states import Activity, State
from condorx.language import resources
from condorx.language.config import Config
from condorx.transport.wire import Expr

# States in which the slot lies that it will not start jobs (manual 3.5.8.3 and 3.5.8.5):
# "says that Requirements are false to prevent being matched again".
NOT_MATCHABLE = (State.MATCHED, State.PREEMPTING)


@dataclass(frozen=True)
class Extras:
    """STARTD_ATTRS and the cross-slot attribute lists, read once."""

    attrs: tuple[str, ...]
    slot_attrs: tuple[str, ...]  # published as slot<N>_<Attr>
    vm_attrs: tuple[str, ...]  # published as vm<N>_<Attr>

    @classmethod
    def from_config(cls, cfg: Config) -> Extras:
        attrs = cfg.get_list("STARTD_ATTRS") + cfg.get_list("STARTD_EXPRS")
        slot = cfg.get_list("STARTD_SLOT_ATTRS") + cfg.get_list("STARTD_SLOT_EXPRS")
        return cls(
            tuple(dict.fromkeys(attrs)),
            tuple(dict.fromkeys(slot)),
            tuple(dict.fromkeys(cfg.get_list("STARTD_VM_EXPRS"))),
        )


@dataclass(frozen=True)
class Measures:
    """The machine-wide readings of one poll, and the time a view or an ad is made."""

    inputs: Inputs
    now: float
    benchmarks: dict[str, Any]  # Mips, KFlops, LastBenchmark
    virtual_memory: int
    serial: int
    lifetime: int
    # What draining the machine now would cost (`drain_estimates`), in every slot's ad.
    draining: dict[str, int] = field(default_factory=dict)


def slot_ad(
    slot: Slot,
    m: Machine,
    policy: Policy,
    measures: Measures,
    load: tuple[float, float],
) -> dict[str, Any]:
    """The slot's ad as a wire map; `load` is its (LoadAvg, CondorLoadAvg)."""
    ad = fixed_part(slot, m, policy, measures.benchmarks)
    ad.update(varying_part(slot, measures, load))
    return ad


def fixed_key(slot: Slot, m: Machine, benchmarks: dict[str, Any]) -> tuple[Any, ...] | None:
    """What `fixed_part` reads that may change: while it is the same, so is the part (a
    partitionable slot's, which its dynamic slots change, is made anew each time: None)."""
    if slot.kind == "Partitionable":
        return None
    c = slot.claim
    claim = None
    if c is not None:
        claim = (c, c.claimed, c.user, c.client_machine, c.job, c.job_start, c.rank)
    state = (slot.state, slot.activity, slot.entered_state, slot.entered_activity)
    return (*state, m, claim, benchmarks)


# The attributes of a slot's ad that its state and activity alone decide.
STATE_ATTRS = ("State", "Activity", "Start", "START")


def state_part(state: State, activity: Activity, policy: Policy) -> dict[str, Any]:
    """What the slot's ad says that its state and activity alone decide (STATE_ATTRS)."""
    start = _expr("false" if state in NOT_MATCHABLE else policy.texts["START"])
    return {"State": state, "Activity": activity, "Start": start, "START": start}


def fixed_part(
    slot: Slot, m: Machine, policy: Policy, benchmarks: dict[str, Any]
) -> dict[str, Any]:
    """What the slot's ad says that changes only with its state, its claim and its job,
    and with the machine's last benchmarks (`fixed_key`), not with the time or the
    machine's readings. The benchmarks are here because the default RunBenchmarks,
    `LastBenchmark == 0`, is asked of every unclaimed slot at every poll: read from the
    fixed part, its value is kept, and no view is made for it."""
    ad: dict[str, Any] = {
        "MyType": "Machine",
        "TargetType": "Job",
        "Name": slot.name,
        "Machine": m.hostname,
        "SlotID": slot.id,
        "VirtualMachineID": slot.id,
        "SlotType": slot.kind,
        "TotalCpus": m.cpus,
        "TotalMemory": m.memory_mb,
        "Arch": m.arch,
        "OpSys": m.opsys,
        **state_part(slot.state, slot.activity, policy),
        "EnteredCurrentState": int(slot.entered_state),
        "EnteredCurrentActivity": int(slot.entered_activity),
        "Requirements": _expr(f"(START) && ({policy.texts['IS_VALID_CHECKPOINT_PLATFORM']})"),
        "Rank": _expr(policy.texts["RANK"]),
        "IsOwner": _expr(policy.texts["IS_OWNER"]),
        "MaxJobRetirementTime": _expr(policy.texts["MaxJobRetirementTime"]),
        "SlotWeight": _expr(slot.weight or policy.texts["SLOT_WEIGHT"]),
        "HasFileTransfer": True,
        "HasJobDeferral": True,
        "StartdIpAddr": m.address,
        **version.stamp(),
        "MyAddress": m.address,
        "UidDomain": m.uid_domain,
        "FileSystemDomain": m.fs_domain,
        "PartitionableSlot": slot.kind == "Partitionable",
        "CurrentRank": slot.claim.rank if slot.claim is not None and slot.claim.job else 0.0,
        **benchmarks,
    }
    ad.update(_resources(slot, m))
    ad.update(_claimed(slot))
    return ad


def varying_part(slot: Slot, measures: Measures, load: tuple[float, float]) -> dict[str, Any]:
    """What the slot's ad says that changes with the time and the machine's readings."""
    inputs, now = measures.inputs, measures.now
    clock_min, clock_day = clock(int(now))
    ad: dict[str, Any] = {
        "VirtualMemory": measures.virtual_memory,
        "KeyboardIdle": inputs.keyboard_idle,
        "ConsoleIdle": inputs.console_idle,
        "LoadAvg": load[0],
        "CondorLoadAvg": load[1],
        "ClockMin": clock_min,
        "ClockDay": clock_day,
        "CpuIsBusy": slot.cpu_busy_since is not None,
        "CpuBusyTime": int(now - slot.cpu_busy_since) if slot.cpu_busy_since else 0,
        "UpdateSequenceNumber": measures.serial,
        "ClassAdLifetime": measures.lifetime,
        **daemon_stats.ad(),
    }
    claim = slot.claim
    if claim is not None and claim.claimed:
        ad.update(slot.totals(now))
    return ad


def private_ad(slot: Slot, m: Machine, lifetime: int) -> dict[str, Any]:
    """The slot's private ad (HTCondor's MachinePrivate): the claim id it offers, which a
    schedd presents to claim it (a new one once a static slot's is spent)."""
    if not slot.offer:
        slot.offer = secrets.token_hex(16)
    return {
        "MyType": "MachinePrivate",
        "Name": slot.name,
        "Capability": slot.offer,
        "ClaimId": slot.offer,
        "StartdIpAddr": m.address,
        "ClassAdLifetime": lifetime,
    }


@functools.lru_cache(maxsize=64)
def _expr(text: str) -> Expr:
    """The policy's few texts, each one Expr: a view that compares two ads of a slot
    finds them the same object."""
    return Expr(text)


def _resources(slot: Slot, m: Machine) -> dict[str, Any]:
    """What the slot holds: a partitionable slot says what it has left to carve (and
    TotalSlot<name> what it holds in all), as HTCondor's does; and the custom resources,
    each with its machine's total, the identifiers found (Detected<name>) and the
    slot's own (Assigned<name>)."""
    partitionable = slot.kind == "Partitionable"
    cpus, memory, disk = slot.free() if partitionable else (slot.cpus, slot.memory, slot.disk)
    out: dict[str, Any] = {
        "Cpus": cpus,
        "Memory": memory,
        "Disk": disk,
        # condorx's own: how many dynamic slots it has carved, so that a negotiator
        # knows when its ad shows the claims of the matches it handed out.
        **({"DynamicSlotsCarved": slot.carvings} if partitionable else {}),
        # Its consumption policy, for the negotiator (what each match takes of it).
        **{f"Consumption{n}": _expr(t) for n, t in (slot.consumption or {}).items()},
        "TotalSlotCpus": slot.cpus,
        "TotalSlotMemory": slot.memory,
        "TotalSlotDisk": slot.disk,
        "MachineResources": resources.listing(r.name for r in m.resources),
    }
    free = slot.free_custom() if partitionable else slot.custom
    for r in m.resources:
        out[r.name] = free.get(r.name, 0)
        out[f"TotalSlot{r.name}"] = slot.custom.get(r.name, 0)
        out[f"Total{r.name}"] = r.count
        out[f"Detected{r.name}"] = ", ".join(r.ids) if r.ids else r.count
        if r.ids:
            ids = slot.free_ids(r.name) if partitionable else slot.assigned.get(r.name, ())
            out[f"Assigned{r.name}"] = ", ".join(ids)
    return out


def _claimed(slot: Slot) -> dict[str, Any]:
    claim = slot.claim
    if claim is None or not claim.claimed:
        return {}
    out: dict[str, Any] = {
        "RemoteUser": claim.user,
        "RemoteOwner": claim.user,
        "ClientMachine": claim.client_machine,
    }
    # Whom the claim is charged to (the accountant's and the group quotas' name), from
    # its job's AccountingGroup; kept between the claim's jobs, as HTCondor keeps it.
    job = claim.job or claim.last_job
    group = job.get("AccountingGroup") if job is not None else None
    if not (isinstance(group, str) and group) and claim.account != claim.user:
        # Before its first job: the accounting name it was matched for, so that a
        # negotiator never takes it for another submitter's (and preempts it for its own).
        group = claim.account
    if isinstance(group, str) and group:
        out["AccountingGroup"] = group
    # What the negotiator counts against its concurrency limits: the claim's (the
    # match's), else its job's own (fetched work, a claim no negotiator made).
    limits = claim.limits or _own_limits(job)
    if limits:
        out["ConcurrencyLimits"] = limits
    coming = slot.next_claim
    if coming is not None and coming.limits:
        out["PreemptingConcurrencyLimits"] = coming.limits
    if claim.job is not None:
        job = claim.job
        out["JobId"] = f"{job.get('ClusterId')}.{job.get('ProcId')}"
        out["JobStart"] = int(claim.job_start)
        out["JobUniverse"] = job.get("JobUniverse")
    return out


def _own_limits(job: ClassAd | None) -> str:
    value = job.get("ConcurrencyLimits") if job is not None else None
    return value.lower() if isinstance(value, str) else ""


def add_extras(ads: list[dict[str, Any]], cfg: Config, extras: Extras) -> None:
    """Join the administrator's attributes and the cross-slot ones to every ad."""
    for ad in ads:
        for name in extras.attrs:
            text = cfg.get(f"SLOT{ad['SlotID']}_{name}") or cfg.get(name)
            if text is not None and text.strip():
                ad[name] = Expr(text)  # as written, evaluated where the ad is
    for prefix, names in (("slot", extras.slot_attrs), ("vm", extras.vm_attrs)):
        if not names:
            continue
        shared = {
            f"{prefix}{ad['SlotID']}_{name}": ad[name]
            for ad in ads
            if ad.get("SlotType") != "Dynamic"
            for name in names
            if name in ad
        }
        for ad in ads:
            ad.update(shared)
