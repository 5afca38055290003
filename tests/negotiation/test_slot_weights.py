"""Slot weights in the negotiation cycle (SLOT_WEIGHT, NEGOTIATOR_USE_SLOT_WEIGHTS), as
HTCondor's negotiator counts them: the pie is the pool's weight, each submitter's slice is
a weight, a match costs its slot's weight (a partitionable slot's: the drop in its
weight), and a turn's first match may round the slice up (SubmitterLimitPermits)."""

from __future__ import annotations

from collections import Counter

from condorx.classad import ClassAd, ExprTree
from condorx.language.negotiation import Submitter, negotiate


def static(name: str, cpus: int) -> ClassAd:
    return ClassAd(
        {
            "Name": name,
            "State": "Unclaimed",
            "Requirements": True,
            "Cpus": cpus,
            "SlotWeight": ExprTree("Cpus"),
        }
    )


def jobs(owner: str, n: int, cpus: int = 1) -> list[ClassAd]:
    return [
        ClassAd(
            {
                "Owner": owner,
                "ClusterId": 1,
                "ProcId": k,
                "RequestCpus": cpus,
                "RequestMemory": 1,
                "RequestDisk": 1,
                "Requirements": True,
            }
        )
        for k in range(n)
    ]


def weight_by_user(cycle) -> Counter[str]:
    got: Counter[str] = Counter()
    for m in cycle.matches:
        slot = m.dynamic_slot if m.dynamic_slot is not None else m.slot
        got[m.submitter.name] += int(slot["Cpus"])
    return got


def test_the_pie_is_shared_by_weight_not_by_slots():
    pool = [static("big@x", 8)] + [static(f"small{k}@x", 1) for k in range(8)]
    subs = [
        Submitter("alice@x", 500.0, jobs("alice", 10)),
        Submitter("bob@x", 500.0, jobs("bob", 10)),
    ]
    cycle = negotiate(pool, subs)
    assert len(cycle.matches) == 9
    # Sixteen cores between two users of one priority: eight each, whoever took the
    # big slot (its eight in one match).
    assert sorted(weight_by_user(cycle).values()) == [8, 8]


def test_unweighted_each_slot_counts_one():
    pool = [static("big@x", 8)] + [static(f"small{k}@x", 1) for k in range(3)]
    subs = [
        Submitter("alice@x", 500.0, jobs("alice", 10)),
        Submitter("bob@x", 500.0, jobs("bob", 10)),
    ]
    cycle = negotiate(pool, subs, slot_weights=False)
    assert sorted(Counter(m.submitter.name for m in cycle.matches).values()) == [2, 2]


def test_a_partitionable_match_costs_the_drop_in_its_weight():
    pslot = ClassAd(
        {
            "Name": "slot1@x",
            "State": "Unclaimed",
            "PartitionableSlot": True,
            "SlotType": "Partitionable",
            "Cpus": 12,
            "Memory": 12000,
            "Disk": 100000,
            "SlotWeight": ExprTree("Cpus"),
            "Requirements": ExprTree("TARGET.RequestCpus <= Cpus"),
        }
    )
    subs = [
        Submitter("alice@x", 500.0, jobs("alice", 5, cpus=4)),
        Submitter("bob@x", 500.0, jobs("bob", 5, cpus=4)),
    ]
    cycle = negotiate([pslot], subs)
    # Twelve cores, six each: a first job of four each (the second would pass the six);
    # then the four left go to the first, its turn's first match rounding it up.
    assert Counter(m.submitter.name for m in cycle.matches) == {"alice@x": 2, "bob@x": 1}
    assert weight_by_user(cycle) == {"alice@x": 8, "bob@x": 4}
