"""GROUP_NAMES and its knobs as the negotiator reads them (GroupEntry::hgq_construct_tree):
quotas clamped to their ranges with an error naming the knob, the static quota before the
dynamic one, per-group flags over the pool-wide ones, the old HFS_ names as fallbacks."""

from __future__ import annotations

import logging

from tests.negotiation.test_group_quotas import got, jobs, slots

from condorx.daemons.negotiator.group_accounts import GroupAccounts
from condorx.daemons.negotiator.groups import read_groups
from condorx.language.config import Config
from condorx.language.negotiation import Accountant, Submitter, negotiate


def groups(text: str):
    return read_groups(Config.from_text(text)).core


def test_no_group_names_means_no_groups():
    assert not groups("").has_groups()


def test_names_flags_and_the_tree():
    g = groups(
        "GROUP_NAMES = group_a, group_a.sub, group_b, orphan.child\n"
        "GROUP_QUOTA_group_a = 10\nGROUP_QUOTA_DYNAMIC_group_a.sub = 0.5\n"
        "GROUP_ACCEPT_SURPLUS = true\nGROUP_ACCEPT_SURPLUS_group_b = false\n"
    )
    assert g.names == ["<none>", "group_a", "group_b", "group_a.sub"]
    assert g.accepts_surplus("group_a") is True and g.accepts_surplus("group_b") is False
    # A group whose parent is not defined is dropped, in HTCondor's words.
    assert any("orphan.child" in w and "missing parent" in w for w in g.warnings)


def test_a_quota_out_of_range_is_clamped_and_named(caplog):
    caplog.set_level(logging.ERROR, logger="condorx.negotiator")
    g = groups(
        "GROUP_NAMES = a, b\nGROUP_QUOTA_a = -5\nGROUP_QUOTA_DYNAMIC_b = 1.5\n"
        "GROUP_ACCEPT_SURPLUS = false\n"
    )
    assert "GROUP_QUOTA_a (condor_config, line 2) is too low (-5)" in caplog.text
    assert "GROUP_QUOTA_DYNAMIC_b (condor_config, line 3) is too high (1.5)" in caplog.text
    # a's quota is 0 (clamped), b's the whole pool (dynamic, clamped to 1).
    subs = [
        Submitter("a.u@pool", 500.0, jobs("a.u", 5)),
        Submitter("b.v@pool", 500.0, jobs("b.v", 5)),
    ]
    cycle = negotiate(slots(4), subs, groups=g, pool_size=4.0)
    assert got(cycle, subs) == {"a.u@pool": 0, "b.v@pool": 4}


def test_a_quota_that_is_not_a_number_is_refused_by_name(caplog):
    caplog.set_level(logging.ERROR, logger="condorx.negotiator")
    groups("GROUP_NAMES = a\nGROUP_QUOTA_a = lots\n")
    assert "GROUP_QUOTA_a (condor_config, line 2) is not a number (lots)" in caplog.text


def test_the_static_quota_wins_over_the_dynamic_one():
    g = groups("GROUP_NAMES = a\nGROUP_QUOTA_a = 2\nGROUP_QUOTA_DYNAMIC_a = 1.0\n")
    subs = [Submitter("a.u@pool", 500.0, jobs("a.u", 5))]
    assert got(negotiate(slots(4), subs, groups=g, pool_size=4.0), subs) == {"a.u@pool": 2}


def test_round_robin_rate_falls_back_to_its_old_name_and_a_bad_one_is_clamped(caplog):
    caplog.set_level(logging.ERROR, logger="condorx.negotiator")
    # The parameter table sets GROUP_QUOTA_ROUND_ROBIN_RATE, so the old name is read
    # only where the new one is set empty.
    groups("GROUP_NAMES = a\nGROUP_QUOTA_ROUND_ROBIN_RATE =\nHFS_ROUND_ROBIN_RATE = 0.5\n")
    assert "HFS_ROUND_ROBIN_RATE (condor_config, line 3) is too low (0.5)" in caplog.text


def accounts(text: str) -> GroupAccounts:
    return GroupAccounts(read_groups(Config.from_text(text)), "pool")


def test_groups_are_charged_for_their_members_and_start_at_their_factor():
    acc = Accountant(halflife=86400.0, default_factor=1000.0)
    g = accounts(
        "GROUP_NAMES = group_a, group_a.b\nGROUP_QUOTA_group_a = 10\n"
        "GROUP_QUOTA_DYNAMIC_group_a.b = 0.5\nGROUP_PRIO_FACTOR_group_a.b = 50\n"
        "GROUP_AUTOREGROUP_group_a = true\n"
    )
    g.prime_groups(acc)
    assert all(acc.knows(n) for n in ("<none>", "group_a", "group_a.b"))
    assert acc.factor("group_a.b") == 50.0 and acc.factor("group_a") == 1000.0
    for name in ("group_a.b.alice", "group_a.bob", "carol"):
        g.prime(acc, name)
    assert acc.factor("group_a.b.alice") == 50.0
    assert not acc.knows("group_a.bob")  # its group sets no factor: the default stands
    held = {"group_a.b.alice": 3.0, "group_a.bob": 2.0, "carol": 1.0}
    assert g.charged(held) == {
        **held,
        "group_a.b": 3.0,
        "group_a": 2.0,
        "<none>": 1.0,
    }
    rows = g.annotate(
        [{"Name": n} for n in ("<none>", "group_a", "group_a.b", "group_a.b.alice", "carol")]
    )
    by_name = {r["Name"]: r for r in rows}
    assert [by_name[n]["AccountingGroup"] for n in by_name] == [
        "<none>",
        "<none>",
        "group_a",
        "group_a.b",
        "<none>",
    ]
    assert [r["IsAccountingGroup"] for r in rows] == [True, True, True, False, False]
    assert by_name["group_a"]["ConfigQuota"] == 10.0
    assert by_name["group_a.b"]["ConfigQuota"] == 0.5
    assert by_name["group_a"]["SurplusPolicy"] == "regroup"
    assert by_name["group_a.b"]["SurplusPolicy"] == "no"
    assert by_name["<none>"]["SurplusPolicy"] == "regroup"
    assert "EffectiveQuota" not in by_name["carol"]
