"""What the pool holds and who holds it, from the slots' ads at a cycle's start: the
accountant charges each accounting name for its claimed slots, and group quotas share
the pool's size (in weighted slots) by what each name holds already.

A slot weighs its SlotWeight when it publishes one, else its Cpus (HTCondor's default
SLOT_WEIGHT), when NEGOTIATOR_USE_SLOT_WEIGHTS is on; one otherwise. A partitionable
slot's Cpus are those not yet carved, so the pool's size counts each core once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from condorx.classad import ClassAd


@dataclass
class PoolUsage:
    #: The pool's size: every slot's weight, claimed or not.
    size: float = 0.0
    #: Claimed slots by accounting name (the slot's AccountingGroup, else RemoteUser).
    slots: dict[str, float] = field(default_factory=dict)
    #: The same, weighted.
    weighted: dict[str, float] = field(default_factory=dict)


def pool_usage(
    slots: list[ClassAd], weighted: bool, incoming: Mapping[str, str] | None = None
) -> PoolUsage:
    """What the pool holds; `incoming`: slots (by name) being taken by a preempting
    match, charged to its accounting name whatever their ads still say."""
    usage = PoolUsage()
    incoming = incoming or {}
    for s in slots:
        weight = slot_weight(s) if weighted else 1.0
        usage.size += weight
        pending = incoming.get(str(s.get("Name")))
        if pending is not None:  # being taken by a preempting match: the incoming one's
            name: str | None = pending
        elif s.get("State") == "Claimed":
            name = charged_name(s)
        else:
            continue
        if name is not None:
            usage.slots[name] = usage.slots.get(name, 0.0) + 1.0
            usage.weighted[name] = usage.weighted.get(name, 0.0) + weight
    return usage


def slot_weight(slot: ClassAd) -> float:
    for attr in ("SlotWeight", "Cpus"):
        value = slot.get(attr)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value)
    return 1.0


def charged_name(slot: ClassAd) -> str | None:
    """Whom a claimed slot is charged to: its AccountingGroup, else its RemoteUser."""
    for attr in ("AccountingGroup", "RemoteUser"):
        value = slot.get(attr)
        if isinstance(value, str) and value:
            return value
    return None
