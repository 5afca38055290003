"""Accounting groups under hierarchical quotas, through the Python API: the tree as the
configuration gives it, and cycles that share the pool by group (HTCondor's admin manual,
"Hierarchical Group Quotas"; GroupEntry.cpp for the figures)."""

from __future__ import annotations

import math

import pytest

from condorx import ClassAdParseError
from condorx.classad import ClassAd, ParserType, parseAds
from condorx.language.negotiation import Groups, Submitter, negotiate


def slots(n: int) -> list[ClassAd]:
    text = "\n\n".join(
        f'Name = "slot{k}"\nCpus = 1\nMemory = 4096\nState = "Unclaimed"\nRequirements = true'
        for k in range(n)
    )
    return list(parseAds(text, ParserType.Old))


def jobs(account: str, n: int) -> list[ClassAd]:
    return [
        ClassAd(
            f'[ Owner = "{account.rsplit(".", 1)[-1]}"; AccountingGroup = "{account}"; '
            f"ProcId = {k}; RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]"
        )
        for k in range(n)
    ]


def got(cycle, subs: list[Submitter]) -> dict[str, int]:
    return {s.name: sum(m.submitter is s for m in cycle.matches) for s in subs}


def test_the_tree_names_its_groups_and_assigns_submitters():
    g = Groups([("physics", 10.0, None, None, None), ("physics.cms", None, 0.5, True, None)])
    assert g.names == ["<none>", "physics", "physics.cms"]
    assert g.has_groups()
    assert g.assigned("physics.cms.alice@pool") == "physics.cms"
    assert g.assigned("physics.bob@pool") == "physics"
    # An unknown group, or none at all, is charged to the root.
    assert g.assigned("chemistry.carol@pool") == "<none>"
    assert g.assigned("dave@pool") == "<none>"
    assert g.accepts_surplus("physics.cms") is True
    assert g.accepts_surplus("physics") is False
    assert g.accepts_surplus("nosuch") is None
    assert g.last_shares() == [] and g.last_rounds() == 0


def test_no_groups_defined_is_no_grouping():
    assert not Groups([]).has_groups()


def test_bad_knobs_are_refused_with_their_names():
    with pytest.raises(ValueError, match="GROUP_QUOTA_ROUND_ROBIN_RATE"):
        Groups([("a", 1.0, None, None, None)], round_robin_rate=0.0)
    with pytest.raises(ValueError, match="GROUP_QUOTA_ROUND_ROBIN_RATE"):
        Groups([("a", 1.0, None, None, None)], round_robin_rate=math.nan)
    with pytest.raises(ClassAdParseError, match="GROUP_SORT_EXPR"):
        Groups([("a", 1.0, None, None, None)], sort_expr="1 +")


def test_static_quotas_cap_each_group():
    pool = slots(10)
    groups = Groups([("a", 6.0, None, None, None), ("b", 3.0, None, None, None)])
    subs = [
        Submitter("a.alice@pool", 500.0, jobs("a.alice", 20)),
        Submitter("b.bob@pool", 500.0, jobs("b.bob", 20)),
    ]
    cycle = negotiate(pool, subs, groups=groups, pool_size=10.0)
    # No group accepts surplus: each gets its quota and the tenth slot stays free.
    assert got(cycle, subs) == {"a.alice@pool": 6, "b.bob@pool": 3}
    shares = dict(groups.last_shares())
    assert shares["a"]["quota"] == 6.0 and shares["a"]["requested"] == 20.0
    assert shares["b"]["allocated"] == 3.0
    assert groups.last_rounds() >= 1


def test_usage_held_now_counts_against_the_quota():
    pool = slots(10)
    groups = Groups([("a", 6.0, None, None, None), ("b", 4.0, None, None, None)])
    subs = [
        Submitter("a.alice@pool", 500.0, jobs("a.alice", 20)),
        Submitter("b.bob@pool", 500.0, jobs("b.bob", 20)),
    ]
    # alice's group already runs 4 jobs elsewhere in a pool of 14.
    cycle = negotiate(pool, subs, groups=groups, pool_size=14.0, usage={"a.alice@pool": 4.0})
    assert got(cycle, subs) == {"a.alice@pool": 2, "b.bob@pool": 4}


def test_dynamic_quotas_share_the_pool_by_fraction_and_surplus_goes_to_who_accepts_it():
    pool = slots(20)
    groups = Groups(
        [("a", None, 0.5, None, None), ("b", None, 0.25, None, None)], accept_surplus=True
    )
    subs = [
        Submitter("a.alice@pool", 500.0, jobs("a.alice", 4)),
        Submitter("b.bob@pool", 500.0, jobs("b.bob", 40)),
    ]
    cycle = negotiate(pool, subs, groups=groups, pool_size=20.0)
    # a asks for only 4 of its 10; b takes its 5 and the surplus the others leave.
    assert got(cycle, subs) == {"a.alice@pool": 4, "b.bob@pool": 16}


def test_jobs_outside_every_group_share_the_root():
    pool = slots(10)
    groups = Groups([("a", 4.0, None, None, None)])
    subs = [
        Submitter("a.alice@pool", 500.0, jobs("a.alice", 20)),
        Submitter("carol@pool", 500.0, jobs("carol", 20)),
    ]
    cycle = negotiate(pool, subs, groups=groups, pool_size=10.0)
    # The root's quota is what the groups leave: 10 - 4.
    assert got(cycle, subs) == {"a.alice@pool": 4, "carol@pool": 6}


def test_a_claimed_slot_is_charged_to_its_accounting_group():
    """RemoteUserPrio is the priority of the slot's AccountingGroup when it runs for one,
    as HTCondor's matchmaker looks it up, not of its owner."""
    busy = ClassAd(
        '[ Name = "busy"; State = "Claimed"; RemoteOwner = "alice"; '
        'AccountingGroup = "group_a.alice"; Memory = 4096; Requirements = true; Rank = 0 ]'
    )
    rules = "RemoteUserPrio > SubmitterUserPrio * 1.2"

    def preempts(priorities: dict[str, float]) -> list[str | None]:
        cycle = negotiate(
            [busy],
            [Submitter("bob@pool", 500.0, jobs("bob", 1))],
            preemption_requirements=rules,
            priorities=priorities,
        )
        return [m.preempts for m in cycle.matches]

    assert preempts({"group_a.alice": 5000.0, "alice": 1.0}) == ["priority"]
    assert preempts({"group_a.alice": 1.0, "alice": 5000.0}) == []
