"""condor_userprio's table for a pool with accounting groups, as user_prio.cpp makes it:
its CollectInfo (what each record has, each group's id: the named groups numbered in
the order of their names, the root `<none>` 0), its LineRecLT orders (users under their
group, the groups by sort key, or groups first) and its PrintInfo (the group rows, the
users indented under them without their group's prefix, "n/d" where a group has no
figure, the surplus policy in the footer), with its column table.

The records come in the order of HTCondor's own report (`userprio_tree.tree_order`):
-grouporder keeps it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from condorx.cli.timefmt import format_date, format_date_year, format_time_nosecs
from condorx.cli.userprio_tree import ROOT

FLT_MAX = 3.4028234663852886e38  # what C's FLT_MAX reads as a double

# HTCondor's column table (aCols), in its order: (detail, width, first head, second head).
COLUMNS = (
    ("Group", 5, "Group", "Id"),
    ("Order", 9, "Group", "Order"),
    ("SortKey", 9, "Group", "Sort Key"),
    ("EffQuota", 9, "Effective", "Quota"),
    ("CfgQuota", 9, "Config", "Quota"),
    ("Surplus", 7, "Use", "Surplus"),
    ("TreeQuota", 9, "Subtree", "Quota"),
    ("Priority", 12, "Effective", "Priority"),
    ("RealPrio", 8, "Real", "Priority"),
    ("Factor", 9, "Priority", "Factor"),
    ("ResUsed", 6, "Wghted", "In Use"),
    ("WtResUsed", 12, "Total Usage", "(wghted-hrs)"),
    ("UseTime1", 16, "Usage", "Start Time"),
    ("UseTime2", 16, "Last", "Usage Time"),
    ("UseDeltaT", 10, "Time Since", "Last Usage"),
    ("Requested", 10, "Weighted", "Requested"),
    ("Floor", 9, "Submitter", "Floor"),
    ("Ceiling", 9, "Submitter", "Ceiling"),
)
PRIOS = frozenset({"Priority", "Factor", "RealPrio"})
USAGE = frozenset({"ResUsed", "WtResUsed"})
QUOTAS = frozenset({"EffQuota", "CfgQuota", "TreeQuota", "Surplus", "Requested"})
MOST = frozenset(
    {"CfgQuota", "Surplus", "Priority", "Factor", "UseDeltaT", "Requested", "Ceiling", "Floor"}
    | USAGE
)
ALL = MOST | QUOTAS | PRIOS | {"UseTime1", "UseTime2"}
# Each display option's columns (HTCondor's DetailFlag bits), and what -quotas and
# -surplus add; the options add up, and none of them means MOST.
OPTION_DETAILS = {
    "quotas": QUOTAS,
    "surplus": frozenset({"Surplus"}),
    "sortkey": frozenset({"SortKey"}),
    "all": ALL,
    "most": MOST,
    "groupid": frozenset({"Group"}),
    "order": frozenset({"Order"}),
    "usage": USAGE | {"UseTime1", "UseTime2"},
    "priority": PRIOS,
}
_SURPLUS = {"regroup": "Regroup", "byquota": "ByQuota", "no": "no"}
# The orders LineRecLT knows that condor_userprio's table uses.
BY_COLUMN1, GROUPS_FIRST_BY_INDEX, HIER_BY_GROUP_ID, HIER_BY_ORDER, GROUPS_FIRST_BY_NAME = range(5)


@dataclass
class View:
    """What the command line asks of the table (user_prio.cpp's flags)."""

    detail: set[str]
    hier: bool = True
    dash_hier: bool = False
    dash_quota: bool = False
    group_order: bool = False
    #: MinLastUsageTime: records last used before it are not shown (-1: every one).
    min_last: float = -1


def view(flags: set[str], order: list[str], min_last: float) -> View:
    """The View of these option flags, `order` the options as given (the last of
    -hierarchical, -flat and -grouporder says whether users go under their groups)."""
    detail: set[str] = set()
    for name, columns in OPTION_DETAILS.items():
        if name in flags:
            detail |= columns
    out = View(detail or set(MOST), min_last=min_last)
    out.dash_quota = bool(flags & {"quotas", "surplus"})
    for name in order:
        if name in ("hierarchical", "flat", "grouporder"):
            out.hier = name == "hierarchical"
            out.dash_hier = True
            out.group_order = out.group_order or name == "grouporder"
    return out


@dataclass
class Line:
    """One record as PrintInfo reads it (HTCondor's LineRec)."""

    name: str
    index: int
    priority: float = 0.0
    wt_res: float = 0.0
    acc_usage: float = 0.0
    requested: float = 0.0
    factor: float = 0.0
    begin: int = 0
    last: int = 0
    group: str = ROOT
    is_group: bool = False
    has: set[str] = field(default_factory=set)
    eff_quota: float = 0.0
    cfg_quota: float = 0.0
    tree_quota: float = 0.0
    sort_key: float = 0.0
    surplus: str | None = None  # None: unset; "no", "regroup", "byquota", else unknown
    group_id: int = 0
    order: float = 0.0  # DisplayOrder


@dataclass
class _State:
    detail: set[str]
    avail: set[str] = field(default_factory=set)
    surplus: str | None = None  # GlobalSurplusPolicy
    users_have_quotas: bool = False
    hide_none: bool = True  # HideNoneGroupIfPossible


def _num(rec: dict[str, Any], attr: str) -> float | None:
    value = rec.get(attr)
    return float(value) if isinstance(value, int | float) else None


def _collect(records: list[dict[str, Any]], st: _State) -> list[Line]:
    """CollectInfo: each record's figures and what it has, and each one's group id."""
    lines, fixup = [], False
    for i, rec in enumerate(records, 1):
        ln = Line(str(rec.get("Name", "")), i)
        ln.priority = _num(rec, "Priority") or 0.0
        ln.has |= {"Priority"}
        if (factor := _num(rec, "PriorityFactor")) is not None:
            ln.factor = factor
            ln.has |= {"Factor", "RealPrio"} if factor > 0 else {"Factor"}
        if (acc := _num(rec, "WeightedAccumulatedUsage")) is not None:
            ln.acc_usage, ln.has = acc, ln.has | USAGE
        if (requested := _num(rec, "Requested")) is not None:
            ln.requested, ln.has = requested, ln.has | {"Requested"}
        if (begin := _num(rec, "BeginUsageTime")) is not None:
            ln.begin, ln.has = int(begin), ln.has | {"UseTime1"}
        if (last := _num(rec, "LastUsageTime")) is not None:
            ln.last, ln.has = int(last), ln.has | {"UseTime2", "UseDeltaT"}
        used = _num(rec, "ResourcesUsed")
        if used is not None:
            ln.has |= USAGE
        weighted = _num(rec, "WeightedResourcesUsed")
        ln.wt_res = weighted if weighted is not None else used or 0.0
        if weighted is not None:
            ln.has.add("WtResUsed")
        ln.group = str(rec.get("AccountingGroup") or ROOT)
        ln.is_group = rec.get("IsAccountingGroup") is True
        for attr, key, detail in (
            ("EffectiveQuota", "eff_quota", "EffQuota"),
            ("ConfigQuota", "cfg_quota", "CfgQuota"),
        ):
            if (value := _num(rec, attr)) is not None:
                setattr(ln, key, value)
                ln.has.add(detail)
        if ln.is_group:
            ln.group_id = 0 if ln.name in (ROOT, ".") else -i
            ln.surplus = "no"
            if isinstance(policy := rec.get("SurplusPolicy"), str):
                ln.has.add("Surplus")
                ln.surplus = policy.lower() if policy.lower() in _SURPLUS else "unknown"
                if ln.surplus in ("regroup", "byquota"):
                    st.surplus = ln.surplus
            if (sort_key := _num(rec, "GroupSortKey")) is not None:
                ln.sort_key, ln.has = sort_key, ln.has | {"SortKey"}
            if (tree := _num(rec, "SubtreeQuota")) is not None:
                ln.tree_quota, ln.has = tree, ln.has | {"TreeQuota"}
            ln.has.discard("Priority")  # a group's priority means nothing to its users
        else:
            if ln.group not in (ROOT, "."):
                ln.group_id = -2 * len(records)  # its group's, once the groups have theirs
                fixup = True
            st.users_have_quotas |= bool(ln.has & {"EffQuota", "CfgQuota"})
        if ln.group_id:
            ln.has.add("Group")
        if ln.last == 0:
            ln.last = -1
        st.avail |= ln.has
        lines.append(ln)
    # No column for what the negotiator sent no record of.
    for needed, columns in (
        (USAGE, USAGE),
        ({"Factor"}, {"Factor"}),
        ({"UseTime1"}, {"UseTime1"}),
        ({"UseTime2"}, {"UseTime2", "UseDeltaT"}),
    ):
        if not st.avail & needed:
            st.detail -= columns
    if fixup:
        lines = _number_groups(lines, st)
    return lines


def _number_groups(lines: list[Line], st: _State) -> list[Line]:
    """The named groups numbered 1, 2, ... in the order of their names (`<none>` keeps
    0), each with its display order; each user takes its group's."""
    lines = _sorted(lines, st.detail, GROUPS_FIRST_BY_NAME, True)
    groups = [ln for ln in lines if ln.is_group]
    none = groups[0] if groups else None
    for n, g in enumerate(groups, 1):
        if g.group_id < 0:
            g.group_id = n
        else:
            none = g
        if "Priority" in st.detail:
            # Without sort keys, the group's priority stands in for one.
            if "SortKey" in st.avail:
                g.order = g.sort_key
            else:
                g.order = g.priority if g.group_id else FLT_MAX
        elif st.detail & USAGE:
            g.order = g.acc_usage / 3600.0
        else:
            g.order = float(g.group_id) if g.group_id else FLT_MAX
        g.has.add("Order")
        st.avail.add("Order")
    by_name = {g.name: g for g in groups}
    for ln in lines[len(groups) :]:
        mine = none if ln.group_id >= 0 else by_name.get(ln.group)
        if mine is not None:
            ln.group_id = ln.group_id if ln.group_id >= 0 else mine.group_id
            ln.order = mine.order
            ln.has |= mine.has & {"Order"}
    return lines


def _less(a: Line, b: Line, detail: set[str], order: int, none_last: bool) -> bool:
    """HTCondor's LineRecLT."""
    if order in (HIER_BY_GROUP_ID, HIER_BY_ORDER):
        if a.group_id != b.group_id:
            if none_last and not a.group_id:
                return False
            if none_last and not b.group_id:
                return True
            if order == HIER_BY_ORDER and a.order != b.order:
                return a.order < b.order
            return a.group_id < b.group_id
        if a.is_group != b.is_group:
            return a.is_group
    elif order == GROUPS_FIRST_BY_NAME:
        if a.is_group != b.is_group:
            return a.is_group
        if a.is_group:
            if none_last and not a.group_id:
                return False
            if none_last and not b.group_id:
                return True
            return a.name < b.name
    elif order == GROUPS_FIRST_BY_INDEX and (a.is_group or b.is_group):
        return a.index < b.index
    if "Priority" in detail:
        return a.priority < b.priority
    if detail & USAGE:
        return a.acc_usage < b.acc_usage
    return a.name < b.name


def _sorted(lines: list[Line], detail: set[str], order: int, none_last: bool) -> list[Line]:
    def cmp(a: Line, b: Line) -> int:
        if _less(a, b, detail, order, none_last):
            return -1
        return 1 if _less(b, a, detail, order, none_last) else 0

    return sorted(lines, key=functools.cmp_to_key(cmp))


def table(records: list[dict[str, Any]], v: View, now: float) -> list[str]:
    """The lines of the table (none when there is no record: HTCondor prints nothing)."""
    if not records:
        return []
    st = _State(set(v.detail))
    hier, hide_groups = v.hier, False
    if not st.detail - PRIOS:  # priorities only: groups have none to show
        hier = hier if v.dash_hier else False
        hide_groups = not hier
    lines = _collect(records, st)
    visible = [ln for ln in lines if ln.last >= v.min_last]
    none_only = not any(ln.group_id > 0 for ln in visible)
    if not none_only:
        st.hide_none = False
    if "Group" not in st.avail or (st.hide_none and none_only):
        hier = False
    if (hide_groups or none_only) and not v.dash_quota and not st.users_have_quotas:
        st.detail -= QUOTAS
    if not v.dash_quota and not st.avail & QUOTAS:
        st.detail -= QUOTAS
    hide_users = bool(st.detail & QUOTAS) and not st.detail - QUOTAS
    hide_users = hide_users and not st.users_have_quotas
    order, none_last = BY_COLUMN1, False
    if hier:
        none_last = st.surplus == "regroup"
        order = HIER_BY_ORDER if st.detail & ({"Priority"} | USAGE) else HIER_BY_GROUP_ID
    elif v.group_order:
        order = GROUPS_FIRST_BY_INDEX
    lines = _sorted(lines, st.detail, order, none_last)
    return _print(lines, st, v, int(now), hier, hide_groups, hide_users)


def _print(
    lines: list[Line],
    st: _State,
    v: View,
    now: int,
    hier: bool,
    hide_groups: bool,
    hide_users: bool,
) -> list[str]:
    """PrintInfo."""
    columns = [c for c in COLUMNS if c[0] in st.detail]
    width = 10
    for ln in lines:
        if ln.last >= v.min_last:
            size = len(ln.name)
            if hier and not ln.is_group:
                size += 2 - (len(ln.group) if ln.group_id and _in(ln) else 0)
            width = max(width, size)
    width = max(min(width, 99), len(f"Number of users: {len(lines)}")) + (2 if hier else 0)

    def row(first: str, cells: list[str]) -> str:
        return _pad(first, width) + "".join(" " + c for c in cells)

    out = [f"Last Priority Update: {format_date(now)}"]
    out.append(row("Group" if hier else "", [_pad(h, w, "centre") for _, w, h, _ in columns]))
    second = (
        ("Name" if hier else "Group Name")
        if hide_users
        else ("  User Name" if hier else "User Name")
    )
    out.append(row(second, [_pad(h, w, "centre") for _, w, _, h in columns]))
    dashes = "-" * width + "".join(" " + "-" * w for _, w, _, _ in columns)
    out.append(dashes)
    users, wt_res, acc_usage = 0, 0.0, 0.0
    for ln in lines:
        if ln.last < v.min_last:
            continue
        if not ln.is_group:
            users += 1
            if hide_users:
                continue
        else:
            if hide_groups or (not hier and st.hide_none and not ln.group_id):
                continue
            st.hide_none = False  # one group shown, and `<none>` is shown too
        if not hier or ln.is_group:
            name = ln.name
        else:
            name = "  " + (ln.name[len(ln.group) + 1 :] if ln.group_id > 0 and _in(ln) else ln.name)
        out.append(row(name, [_cell(ln, d, w, now) for d, w, _, _ in columns]))
        if not ln.is_group:
            wt_res += ln.wt_res
            acc_usage += ln.acc_usage
    out.append(dashes)
    totals = {
        "Surplus": _pad(_surplus_name(st.surplus), 7),
        "ResUsed": _float(wt_res, 6, 0),
        "WtResUsed": _float(acc_usage / 3600.0, 12, 2),
        # HTCondor's total begin time starts at 0, the earliest of any: it shows none.
        "UseTime2": _right(format_date_year(v.min_last) if v.min_last > 0 else "", 16),
        "UseDeltaT": _right(_delta(now - int(v.min_last)) if v.min_last > 0 else "", 10),
    }
    cells = [totals.get(d, " " * w) for d, w, _, _ in columns]
    out.append(row(f"Number of users: {users}", cells).rstrip())
    return out


def _in(ln: Line) -> bool:
    """Whether a user's name starts with its group's, as HTCondor takes it to."""
    return ln.name.lower().startswith(ln.group.lower() + ".")


def _cell(ln: Line, detail: str, width: int, now: int) -> str:
    if detail not in ln.has:
        return _right("n/d" if ln.is_group and detail in QUOTAS | {"SortKey"} else "", width)
    if detail == "Group":
        return _float(ln.group_id, width, 0)
    if detail == "Order":
        return _float(ln.order, width, 2)
    if detail == "Surplus":
        return _pad(_surplus_name(ln.surplus) if ln.group_id else "yes", width)
    if detail == "SortKey":
        return (
            _float(ln.sort_key, width, 2)
            if ln.sort_key < 3.40282001e38
            else _right("<last>", width)
        )
    if detail == "RealPrio":
        return _float(ln.priority / ln.factor if ln.factor > 0 else 0, width, 2)
    if detail == "Factor":
        return _float(ln.factor, width, 2) if ln.factor > 0 else " " * width
    if detail in ("UseTime1", "UseTime2"):
        t = ln.begin if detail == "UseTime1" else ln.last
        return _right(format_date_year(t) if t > 0 else "", width)
    if detail == "UseDeltaT":
        return _right(_delta(now - ln.last), width)
    figure = {
        "EffQuota": (ln.eff_quota, 2),
        "CfgQuota": (ln.cfg_quota, 2),
        "TreeQuota": (ln.tree_quota, 2),
        "Priority": (ln.priority, 2),
        "ResUsed": (ln.wt_res, 0),
        "Requested": (ln.requested, 0),
        "WtResUsed": (ln.acc_usage / 3600.0, 2),
    }.get(detail)
    return _float(figure[0], width, figure[1]) if figure else " " * width


def _delta(secs: int) -> str:
    return "<now>" if secs <= 0 else format_time_nosecs(secs)


def _surplus_name(policy: str | None) -> str:
    return "" if policy is None else _SURPLUS.get(policy, "n/a")


def _float(value: float, width: int, places: int) -> str:
    """HTCondor's FormatFloat: %W.Pf, or %.(W-6)g when that is too wide."""
    text = f"{value:{width}.{places}f}"
    if len(text) > width:
        text = f"{value:.{max(width - 6, 1)}g}"
    return _right(text, width)


def _right(text: str, width: int) -> str:
    """`text` after spaces to `width`, cut to it as HTCondor's PAD_LEFT cuts."""
    return text.rjust(width)[:width]


def _pad(text: str, width: int, how: str = "right") -> str:
    """HTCondor's CopyAndPadToWidth: `text` cut to `width`, filled with spaces after
    it, or around it ("centre", as a heading is)."""
    if how == "centre":
        text = " " * max(0, (width - len(text)) // 2) + text
    return text.ljust(width)[:width]
