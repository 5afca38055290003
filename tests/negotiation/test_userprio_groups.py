"""condor_userprio with accounting groups, as HTCondor's user_prio.cpp shows them: the
table made from records shaped as the negotiator reports them (a record per group,
named without a domain, and each record's AccountingGroup), and through real
negotiators started with GROUP_NAMES."""

from __future__ import annotations

import getpass
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from condorx.cli.timefmt import format_date, format_date_year
from condorx.cli.userprio_groups import table, view
from condorx.cli.userprio_tree import rollup, tree_order
from condorx.client import negotiator
from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for, wait_for_pid

NOW = 1_700_000_000
DAY_AGO = NOW - 86400
ME = getpass.getuser()


def _group(name: str, parent: str, **figures: Any) -> dict[str, Any]:
    rec = {
        "Name": name,
        "Priority": 500.0,
        "RealPriority": 0.5,
        "PriorityFactor": 1000.0,
        "ResourcesUsed": 0.0,
        "WeightedResourcesUsed": 0.0,
        "WeightedAccumulatedUsage": 0.0,
        "BeginUsageTime": 0,
        "LastUsageTime": 0,
        "IsAccountingGroup": True,
        "AccountingGroup": parent,
        "EffectiveQuota": 0.0,
        "ConfigQuota": 0.0,
        "SubtreeQuota": 0.0,
        "GroupSortKey": 0.0,
        "SurplusPolicy": "no",
        "Requested": 0.0,
    }
    rec.update(figures)
    return rec


def _user(name: str, group: str, prio: float, used: float, hours: float, last: int):
    return {
        "Name": name,
        "Priority": prio,
        "RealPriority": prio / 1000,
        "PriorityFactor": 1000.0,
        "ResourcesUsed": used,
        "WeightedResourcesUsed": used,
        "WeightedAccumulatedUsage": hours * 3600,
        "BeginUsageTime": last - 7200,
        "LastUsageTime": last,
        "IsAccountingGroup": False,
        "AccountingGroup": group,
    }


def _used(used: float, hours: float, last: int = NOW - 60) -> dict[str, Any]:
    return {
        "ResourcesUsed": used,
        "WeightedResourcesUsed": used,
        "WeightedAccumulatedUsage": hours * 3600,
        "BeginUsageTime": last - 3600,
        "LastUsageTime": last,
    }


# As the negotiator sends them: in its accountant's order (by name), users bare of any
# domain until the CLI adds it. group_bio has never been used, and its record lacks a
# subtree quota (HTCondor shows "n/d" for a group's missing figure).
RECORDS = [
    _group(
        "<none>",
        "<none>",
        EffectiveQuota=20.0,
        SubtreeQuota=20.0,
        GroupSortKey=3.4e38,
        SurplusPolicy="byquota",
        **_used(3, 10),
    ),
    _group("group_bio", "<none>", ConfigQuota=2.0, GroupSortKey=3.3e38),
    _group(
        "group_chem",
        "<none>",
        EffectiveQuota=10.0,
        ConfigQuota=0.5,
        SubtreeQuota=10.0,
        GroupSortKey=0.2,
        Requested=4.0,
        **_used(2, 2),
    ),
    _group(
        "group_physics",
        "<none>",
        EffectiveQuota=6.0,
        ConfigQuota=6.0,
        SubtreeQuota=10.0,
        GroupSortKey=0.5,
        SurplusPolicy="byquota",
        Requested=8.0,
        **_used(3, 5),
    ),
    _group(
        "group_physics.cms",
        "group_physics",
        EffectiveQuota=4.0,
        ConfigQuota=4.0,
        SubtreeQuota=4.0,
        GroupSortKey=0.25,
        Requested=2.0,
        **_used(1, 1),
    ),
    _user("carol@example.org", "<none>", 800.0, 0, 0.5, NOW - 100),
    _user("group_chem.dave@example.org", "group_chem", 700.0, 2, 2, NOW - 60),
    _user("group_physics.alice@example.org", "group_physics", 900.0, 2, 4, NOW - 60),
    _user("group_physics.cms.bob@example.org", "group_physics.cms", 650.0, 1, 1, NOW),
]
del RECORDS[1]["SubtreeQuota"]


def lines_for(flags: list[str], since: float, records=RECORDS) -> list[str]:
    """The table condor_userprio prints for these options (`since`: -1 for -allusers)."""
    if "grouprollup" in flags:
        records = rollup(records)
    return table(tree_order(records), view(set(flags), flags, since), NOW)


DASHES = (
    "---------------------- --------- ------- ------------ --------- ------ ------------ "
    "---------- ---------- --------- ---------"
)


def test_users_go_under_their_groups_in_the_groups_sort_key_order():
    out = lines_for([], DAY_AGO)
    assert out == [
        f"Last Priority Update: {format_date(NOW)}",
        "Group                   Config     Use    Effective   Priority  Wghted Total Usage "
        " Time Since  Weighted  Submitter Submitter",
        "  User Name              Quota   Surplus   Priority    Factor   In Use (wghted-hrs) "
        "Last Usage Requested    Floor    Ceiling ",
        DASHES,
        "group_chem                  0.50 no                     1000.00      2         2.00 "
        "   0+00:01          4                    ",
        "  dave@example.org                             700.00   1000.00      2         2.00 "
        "   0+00:01                               ",
        "group_physics.cms           4.00 no                     1000.00      1         1.00 "
        "   0+00:01          2                    ",
        "  bob@example.org                              650.00   1000.00      1         1.00 "
        "     <now>                               ",
        "group_physics               6.00 ByQuota                1000.00      3         5.00 "
        "   0+00:01          8                    ",
        "  alice@example.org                            900.00   1000.00      2         4.00 "
        "   0+00:01                               ",
        "<none>                      0.00 yes                    1000.00      3        10.00 "
        "   0+00:01          0                    ",
        "  carol@example.org                            800.00   1000.00      0         0.50 "
        "   0+00:01                               ",
        DASHES,
        "Number of users: 4               ByQuota                             5         7.50 "
        "   1+00:00",
    ]


def test_a_group_never_used_shows_with_allusers():
    rows = [ln[:40].rstrip() for ln in lines_for([], -1)[4:-2]]
    assert rows == [
        "group_chem                  0.50 no",
        "  dave@example.org",
        "group_physics.cms           4.00 no",
        "  bob@example.org",
        "group_physics               6.00 ByQuota",
        "  alice@example.org",
        "group_bio                   2.00 no",  # its sort key, 3.3e38, before <none>'s
        "<none>                      0.00 yes",
        "  carol@example.org",
    ]
    # Never used: HTCondor's time since is the whole epoch, cut to its column.
    assert lines_for([], -1)[10].split()[6:] == ["19675+22:1", "0"]
    # With -allusers the footer has no time since (without, a day: the first test's).
    assert lines_for([], -1)[-1].endswith("ByQuota                             5         7.50")


def test_quotas_show_the_groups_alone():
    head = [
        "Group                  Effective  Config     Use    Subtree   Weighted ",
        "Name                     Quota     Quota   Surplus   Quota   Requested ",
        "---------------------- --------- --------- ------- --------- ----------",
    ]
    assert lines_for(["quotas"], DAY_AGO)[1:] == [
        *head,
        "<none>                     20.00      0.00 yes         20.00          0",
        "group_chem                 10.00      0.50 no          10.00          4",
        "group_physics               6.00      6.00 ByQuota     10.00          8",
        "group_physics.cms           4.00      4.00 no           4.00          2",
        head[2],
        "Number of users: 4                         ByQuota",
    ]
    # group_bio's record has no subtree quota: "n/d".
    assert lines_for(["quotas"], -1)[5] == (
        "group_bio                   0.00      2.00 no            n/d          0"
    )


FLAT_HEAD = [
    "                                   Config     Use    Effective   Priority  Wghted "
    "Total Usage  Time Since  Weighted  Submitter Submitter",
    "User Name                           Quota   Surplus   Priority    Factor   In Use "
    "(wghted-hrs) Last Usage Requested    Floor    Ceiling ",
]


def test_flat_shows_whole_names_by_priority_and_grouporder_puts_the_groups_first():
    flat = lines_for(["flat"], DAY_AGO)
    assert flat[1:3] == FLAT_HEAD
    assert [ln.split()[0] for ln in flat[4:-2]] == [
        "group_chem",  # the groups' priorities (500) are the least
        "group_physics",
        "group_physics.cms",
        "<none>",
        "group_physics.cms.bob@example.org",
        "group_chem.dave@example.org",
        "carol@example.org",
        "group_physics.alice@example.org",
    ]
    assert flat[8] == (
        "group_physics.cms.bob@example.org                         650.00   1000.00      1 "
        "        1.00      <now>                               "
    )
    grouped = lines_for(["grouporder"], DAY_AGO)
    assert grouped[1:3] == FLAT_HEAD
    # The groups as HTCondor's report gives them, breadth first from the root.
    assert [ln.split()[0] for ln in grouped[4:-2]] == [
        "<none>",
        "group_chem",
        "group_physics",
        "group_physics.cms",
        "group_physics.cms.bob@example.org",
        "group_chem.dave@example.org",
        "carol@example.org",
        "group_physics.alice@example.org",
    ]
    # The last of -hierarchical, -flat and -grouporder says; -grouporder still orders.
    assert view({"grouporder", "hierarchical"}, ["grouporder", "hierarchical"], -1).hier
    assert not view({"grouporder", "hierarchical"}, ["hierarchical", "grouporder"], -1).hier


def test_priorities_alone_leave_the_groups_out():
    assert lines_for(["priority"], DAY_AGO)[1:] == [
        "                                   Effective     Real   Priority ",
        "User Name                           Priority   Priority  Factor  ",
        "--------------------------------- ------------ -------- ---------",
        "group_physics.cms.bob@example.org       650.00     0.65   1000.00",
        "group_chem.dave@example.org             700.00     0.70   1000.00",
        "carol@example.org                       800.00     0.80   1000.00",
        "group_physics.alice@example.org         900.00     0.90   1000.00",
        "--------------------------------- ------------ -------- ---------",
        "Number of users: 4",
    ]
    # ... unless asked for: a group shows its real priority, not an effective one.
    hier = lines_for(["priority", "hierarchical"], DAY_AGO)
    assert hier[4] == "group_chem                              0.50   1000.00"
    assert hier[5] == "  dave@example.org           700.00     0.70   1000.00"


def test_usage_orders_the_groups_by_their_usage_and_sortkey_shows_last():
    out = lines_for(["usage", "sortkey"], DAY_AGO)
    assert out[1:4] == [
        "Group                    Group   Wghted Total Usage       Usage             Last      ",
        "  User Name            Sort Key  In Use (wghted-hrs)    Start Time       Usage Time   ",
        "---------------------- --------- ------ ------------ ---------------- ----------------",
    ]
    assert [ln[:52] for ln in out[4:-2]] == [
        "group_physics.cms           0.25      1         1.00",
        "  bob@example.org                     1         1.00",
        "group_chem                  0.20      2         2.00",
        "  dave@example.org                    2         2.00",
        "group_physics               0.50      3         5.00",
        "  alice@example.org                   2         4.00",
        "<none>                   3.4e+38      3        10.00",
        "  carol@example.org                   0         0.50",
    ]
    assert out[4][52:] == f" {format_date_year(NOW - 3660)} {format_date_year(NOW - 60)}"
    # The total start time is HTCondor's (none); the last, since when records are shown.
    assert out[-1] == (
        f"Number of users: 4                    5         7.50 {' ' * 16} "
        f"{format_date_year(DAY_AGO)}"
    )


def test_grouprollup_sums_the_users_up_the_tree():
    rolled = {r["Name"]: r for r in rollup(RECORDS)}
    figures = {
        name: (
            r["WeightedResourcesUsed"],
            r["WeightedAccumulatedUsage"] / 3600,
            r["LastUsageTime"],
            r["Priority"],
        )
        for name, r in rolled.items()
        if r["IsAccountingGroup"]
    }
    assert figures == {
        "<none>": (5.0, 7.5, NOW, 0.0),  # carol, and every group below
        "group_bio": (0.0, 0.0, 0, 0.0),
        "group_chem": (2.0, 2.0, NOW - 60, 0.0),
        "group_physics": (3.0, 5.0, NOW, 0.0),  # alice and group_physics.cms's bob
        "group_physics.cms": (1.0, 1.0, NOW, 0.0),
    }
    assert rolled["group_physics"]["BeginUsageTime"] == NOW - 7200 - 60
    assert rolled["group_physics.alice@example.org"] == RECORDS[7]
    rows = {ln.split()[0]: ln.split()[1:] for ln in lines_for(["grouprollup"], DAY_AGO)[4:-2]}
    assert rows["<none>"] == ["0.00", "yes", "1000.00", "5", "7.50", "<now>", "0"]
    assert rows["group_physics"] == ["6.00", "ByQuota", "1000.00", "3", "5.00", "<now>", "8"]


def test_no_user_in_a_group_shows_the_groups_flat_without_the_root():
    groups = [r for r in RECORDS if r["IsAccountingGroup"]]
    assert [ln.split()[0] for ln in lines_for(["quotas"], -1, groups)[1:-1]] == [
        "Effective",
        "Group",
        "------------------",  # "Number of users: 5" is the widest name
        "group_bio",
        "group_chem",
        "group_physics",
        "group_physics.cms",
        "------------------",
    ]
    assert table([], view(set(), [], -1), NOW) == []  # no record: nothing at all


GROUPS = """\
GROUP_NAMES = group_physics, group_physics.cms, group_chem
GROUP_QUOTA_group_physics = 10
GROUP_QUOTA_group_physics.cms = 4
GROUP_QUOTA_DYNAMIC_group_chem = 0.5
GROUP_ACCEPT_SURPLUS_group_physics = true
UID_DOMAIN = example.org
"""


@pytest.fixture
def group_pool() -> Iterator[LocalPool]:
    with tempfile.TemporaryDirectory(prefix="userprio-groups") as d:
        p = LocalPool(Path(d), QUICK_POOL + GROUPS)
        try:
            yield p
        finally:
            p.stop()


def _userprio(pool: LocalPool, *args: str) -> list[str]:
    return pool.cli("condorx.cli.userprio", *args).stdout.splitlines()


def test_a_negotiators_group_records_show_with_their_quotas(group_pool):
    group_pool.start("collector", "negotiator")
    reply = trio.run(negotiator.priorities, group_pool.cfg, None)
    report = {r["Name"]: r for r in reply.users}
    assert sorted(report) == ["<none>", "group_chem", "group_physics", "group_physics.cms"]

    def row(name: str, config: str, surplus: str) -> str:
        rec = report[name]
        return (
            f"{name:<18} {rec['EffectiveQuota']:9.2f} {config:>9} {surplus:<7} "
            f"{rec['SubtreeQuota']:9.2f} {rec['Requested']:10.0f}"
        )

    # No user in a group yet: the groups flat, by name, and `<none>` left out.
    out = _userprio(group_pool, "-quotas", "-allusers")
    assert out[1:] == [
        "                   Effective  Config     Use    Subtree   Weighted ",
        "Group Name           Quota     Quota   Surplus   Quota   Requested ",
        "------------------ --------- --------- ------- --------- ----------",
        row("group_chem", "0.50", "no"),
        row("group_physics", "10.00", "ByQuota"),
        row("group_physics.cms", "4.00", "no"),
        "------------------ --------- --------- ------- --------- ----------",
        "Number of users: 0                     ByQuota",
    ]
    # None has been used in the last day: no row (HTCondor's table, empty).
    assert _userprio(group_pool, "-quotas")[4:] == [out[3], out[-1]]
    # The records as ads: a group's name has no domain.
    af = _userprio(
        group_pool,
        "-allusers",
        "-af",
        "Name",
        "IsAccountingGroup",
        "AccountingGroup",
        "ConfigQuota",
        "SurplusPolicy",
    )
    assert af == [
        "<none> true <none> 0.0 byquota",
        "group_chem true <none> 0.5 no",
        "group_physics true <none> 10.0 byquota",
        "group_physics.cms true group_physics 4.0 no",
    ]
    ad = _userprio(group_pool, "-allusers", "-long", "-constraint", 'Name == "group_physics.cms"')
    for line in (
        'Name = "group_physics.cms"',
        "IsAccountingGroup = true",
        'AccountingGroup = "group_physics"',
        "ConfigQuota = 4.0",
        'SurplusPolicy = "no"',
    ):
        assert line in ad


def test_a_users_jobs_show_under_its_group(group_pool):
    group_pool.start("collector", "negotiator", "startd", "schedd")
    pidfile = group_pool.root / "pid"
    group_pool.submit(
        "executable = /bin/sh\n"
        f"arguments = \"-c 'echo $$ > {pidfile}; exec sleep 300'\"\n"
        f"accounting_group = group_physics\naccounting_group_user = {ME}\nqueue\n"
    )
    wait_for_pid(pidfile)
    me = f"group_physics.{ME}@example.org"

    def rows(*args: str) -> dict[str, list[str]]:
        out = _userprio(group_pool, *args)
        return {ln[: ln.index("  ", 2)].strip(): ln.split()[1:] for ln in out[4:-2]}

    # A cycle after the job started charges its slot to the user and to its group.
    wait_for(lambda: rows().get(ME + "@example.org", [""] * 3)[2] == "1", "the charge")
    out = _userprio(group_pool)
    assert out[1].split()[:2] == ["Group", "Config"]
    assert out[2].split()[:4] == ["User", "Name", "Quota", "Surplus"]
    names = [ln.split()[0] for ln in out[4:-2]]
    assert names == ["group_physics", f"{ME}@example.org"]  # only what ran in the last day
    group, user = out[4].split(), out[5].split()
    assert group[1:5] == ["10.00", "ByQuota", "1000.00", "1"] and group[-1] == "1"
    assert out[5].startswith(f"  {ME}@example.org ")
    assert user[2:4] == ["1000.00", "1"] and float(user[1]) >= 500
    assert out[-1].split()[:5] == ["Number", "of", "users:", "1", "ByQuota"]

    # The quotas: HTCondor's effective quota of a static one is the quota itself.
    def quotas_shown() -> list[str] | None:
        out = _userprio(group_pool, "-quotas")
        rows = [ln.split() for ln in out[4:-2]]
        return (
            out if rows == [["group_physics", "10.00", "10.00", "ByQuota", "10.00", "1"]] else None
        )

    quotas = wait_for(quotas_shown, "group_physics's quota and request")
    assert [ln.split() for ln in quotas[1:3]] == [
        ["Group", "Effective", "Config", "Use", "Subtree", "Weighted"],
        ["Name", "Quota", "Quota", "Surplus", "Quota", "Requested"],
    ]
    assert quotas[-1].split() == ["Number", "of", "users:", "1", "ByQuota"]
    # Groups first, in the order of HTCondor's report, then the user by its full name.
    grouped = _userprio(group_pool, "-grouporder", "-allusers")
    assert [ln.split()[0] for ln in grouped[4:-2]] == [
        "<none>",
        "group_chem",
        "group_physics",
        "group_physics.cms",
        me,
    ]
    # Rolled up, the root holds what every group below it does.
    rolled = rows("-grouprollup", "-allusers")
    assert rolled["<none>"][:4] == ["0.00", "yes", "1000.00", "1"]
    assert rolled["group_physics"][:4] == ["10.00", "ByQuota", "1000.00", "1"]
    assert rows("-allusers")["<none>"][:4] == ["0.00", "yes", "1000.00", "0"]
    group_pool.cli("condorx.cli.act:rm", "-all")
