"""The startd's slots: how the machine is divided (NUM_SLOTS, SLOT_TYPE_n,
NUM_SLOTS_TYPE_n, SLOT_TYPE_n_PARTITIONABLE), and each slot's state, claim and ad.

The basic policy only (Owner when START is false; Unclaimed, Matched, Claimed Idle/Busy);
the full state machine is the policy issue's.
"""

from __future__ import annotations

import functools
import re
import time
from dataclasses import dataclass, field
from typing import Any

from condorx import wire
from condorx.classad import ClassAd, ExprTree
from condorx.config import Config
from condorx.daemons.startd.machine import Machine
from condorx.wire import Expr


@dataclass
class Claim:
    id: str
    schedd: str  # the schedd's address, where job exits are reported
    user: str
    client_machine: str = ""
    expires: float = 0.0  # a match not claimed by then lapses (MATCH_TIMEOUT)
    claimed: bool = False
    job: ClassAd | None = None  # the job running on the claim, if any
    job_start: float = 0.0


@dataclass
class Slot:
    id: int
    name: str
    kind: str  # Static, Partitionable or Dynamic
    cpus: int
    memory: int
    disk: int
    state: str = "Unclaimed"
    activity: str = "Idle"
    entered_state: float = field(default_factory=time.time)
    entered_activity: float = field(default_factory=time.time)
    claim: Claim | None = None
    parent: Slot | None = None
    children: list[Slot] = field(default_factory=list)

    def enter(self, state: str, activity: str) -> None:
        now = time.time()
        if state != self.state:
            self.state, self.entered_state = state, now
        if activity != self.activity or state != self.state:
            self.activity, self.entered_activity = activity, now

    def free(self) -> tuple[int, int, int]:
        """What a partitionable slot has left to carve."""
        used = [(c.cpus, c.memory, c.disk) for c in self.children]
        return (
            self.cpus - sum(u[0] for u in used),
            self.memory - sum(u[1] for u in used),
            self.disk - sum(u[2] for u in used),
        )


@dataclass(frozen=True)
class SlotType:
    cpus: float | None  # a share (fraction) or None for an equal split
    memory: float | None
    disk: float | None
    absolute: dict[str, int]
    partitionable: bool


def layout(cfg: Config, m: Machine) -> list[Slot]:
    """The slots the configuration asks for, numbered from 1."""
    types: list[tuple[SlotType, int]] = []
    for n in range(1, 10):
        count = cfg.get_int(f"NUM_SLOTS_TYPE_{n}", 0)
        if count > 0:
            spec = cfg.get(f"SLOT_TYPE_{n}") or "100%"
            part = cfg.get_bool(f"SLOT_TYPE_{n}_PARTITIONABLE", False)
            types.append((_parse_type(spec, part), count))
    if not types:
        count = cfg.get_int("NUM_SLOTS", m.cpus)
        share = 1.0 / max(1, count)
        types.append((SlotType(share, share, share, {}, False), max(1, count)))
    slots: list[Slot] = []
    for st, count in types:
        for _ in range(count):
            i = len(slots) + 1
            slots.append(
                Slot(
                    id=i,
                    name=f"slot{i}@{m.hostname}",
                    kind="Partitionable" if st.partitionable else "Static",
                    cpus=_amount(st, "cpus", st.cpus, m.cpus),
                    memory=_amount(st, "memory", st.memory, m.memory_mb),
                    disk=_amount(st, "disk", st.disk, m.disk_kb),
                )
            )
    return slots


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


def _parse_type(spec: str, partitionable: bool) -> SlotType:
    shares: dict[str, float | None] = {"cpus": None, "memory": None, "disk": None}
    absolute: dict[str, int] = {}
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if len(parts) == 1 and "=" not in parts[0]:
        share = _share(parts[0])
        return SlotType(share, share, share, {}, partitionable)
    for part in parts:
        key, _, value = part.partition("=")
        name = _NAMES.get(key.strip().lower())
        if name is None:
            continue
        value = value.strip()
        if value.lower() == "auto":
            continue
        if value.endswith("%") or "/" in value:
            shares[name] = _share(value)
        elif re.fullmatch(r"\d+", value):
            absolute[name] = int(value)
    return SlotType(shares["cpus"], shares["memory"], shares["disk"], absolute, partitionable)


def _share(text: str) -> float:
    text = text.strip()
    if text.endswith("%"):
        return float(text[:-1]) / 100
    if "/" in text:
        a, _, b = text.partition("/")
        return float(a) / float(b)
    return float(text)


@dataclass(frozen=True)
class Policy:
    """The slot expressions from the configuration, as written."""

    start: str
    rank: str
    is_owner: str

    @classmethod
    def from_config(cls, cfg: Config) -> Policy:
        return cls(
            start=cfg.get("START") or "true",
            rank=cfg.get("RANK") or "0.0",
            is_owner=cfg.get("IS_OWNER") or "(START =?= false)",
        )


def slot_ad(slot: Slot, m: Machine, policy: Policy, dynamic: dict[str, Any]) -> dict[str, Any]:
    """The slot's ad as a wire map; `dynamic` holds the measurements of the moment."""
    ad: dict[str, Any] = {
        "MyType": "Machine",
        "TargetType": "Job",
        "Name": slot.name,
        "Machine": m.hostname,
        "SlotID": slot.id,
        "SlotType": slot.kind,
        "Cpus": slot.cpus,
        "Memory": slot.memory,
        "Disk": slot.disk,
        "TotalCpus": m.cpus,
        "TotalMemory": m.memory_mb,
        "Arch": m.arch,
        "OpSys": m.opsys,
        "State": slot.state,
        "Activity": slot.activity,
        "EnteredCurrentState": int(slot.entered_state),
        "EnteredCurrentActivity": int(slot.entered_activity),
        "Start": Expr(policy.start),
        "Requirements": Expr("START"),
        "START": Expr(policy.start),
        "Rank": Expr(policy.rank),
        "IsOwner": Expr(policy.is_owner),
        "HasFileTransfer": True,
        "StartdIpAddr": m.address,
        "UidDomain": m.uid_domain,
        "FileSystemDomain": m.fs_domain,
        "MyAddress": m.address,
        "PartitionableSlot": slot.kind == "Partitionable",
    }
    ad.update(dynamic)
    claim = slot.claim
    if claim is not None and claim.claimed:
        ad.update(
            {
                "RemoteUser": claim.user,
                "RemoteOwner": claim.user,
                "ClientMachine": claim.client_machine,
            }
        )
        if claim.job is not None:
            job = claim.job
            ad["JobId"] = f"{job.get('ClusterId')}.{job.get('ProcId')}"
            ad["JobStart"] = int(claim.job_start)
    return ad


def is_owner(ad: dict[str, Any], policy: Policy) -> bool:
    return _parsed(policy.is_owner).eval(wire.ad_from_wire(ad)) is True


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> ExprTree:
    # Every slot's ad is judged at every update: parse the policy text once.
    return ExprTree(text)
