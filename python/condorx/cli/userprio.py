"""condor_userprio: the users' priorities and usage as the negotiator's accountant keeps
them, and an administrator's changes to them.

condor_userprio [-allusers] [-all | -usage | -priority | -most | -quotas] [-hierarchical | -flat
                | -grouporder] [-grouprollup] [-long | -af EXPR...] [USER...]
condor_userprio -setprio USER VALUE | -setfactor USER VALUE | -setaccum USER SECONDS
                | -setbegin USER TIME | -setlast USER TIME | -resetusage USER | -delete USER
                | -resetall

The table is HTCondor's (user_prio.cpp): by default the users who used the pool in the last
day, best priority first, with their effective priority, factor, slots in use, usage in
hours and time since they last used anything. Names are user@UID_DOMAIN, and an edit names
its user so, as HTCondor's does.

With accounting groups (GROUP_NAMES) the negotiator reports a record per group too, named
without a domain; the table is then HTCondor's for groups (`condorx.cli.userprio_groups`):
users under their groups, with the groups' quotas and surplus policy.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.cli import args as a
from condorx.cli.adformat import AutoFormat
from condorx.cli.common import fail, load, run_client
from condorx.cli.timefmt import format_date, format_date_year, format_time_nosecs
from condorx.cli.userprio_groups import table, view
from condorx.cli.userprio_tree import has_groups, rollup, tree_order
from condorx.client import negotiator
from condorx.language.config import Config
from condorx.transport.wire import RemoteError, WireError

TOOL = "condor_userprio"
OPTIONS = [
    a.Opt("setprio", 1, 2, help="set USER's real priority", metavar="USER VALUE"),
    a.Opt("setfactor", 4, 2, help="set USER's priority factor (at least 1)", metavar="USER VALUE"),
    a.Opt("setaccum", 4, 2, help="set USER's accumulated usage", metavar="USER SECONDS"),
    a.Opt("setbegin", 4, 2, help="set USER's usage begin time", metavar="USER TIME"),
    a.Opt("setlast", 4, 2, help="set USER's last usage time", metavar="USER TIME"),
    a.Opt("resetusage", 1, 1, help="reset USER's accumulated usage to 0", metavar="USER"),
    a.Opt("delete", 3, 1, help="delete USER's accounting record", metavar="USER"),
    a.Opt("resetall", 6, help="reset every user's accumulated usage to 0"),
    a.Opt("long", 1, help="every record as a ClassAd"),
    a.Opt("constraint", 1, 1, help="only the records this expression is true of", metavar="EXPR"),
    a.Opt("autoformat", 5, -1, ("af",), help="these attributes of each record", metavar="EXPR..."),
    a.Opt("all", 1, help="every column"),
    a.Opt("most", 2, help="the default columns"),
    a.Opt("activefrom", 2, 3, help="users active since this date", metavar="MONTH DAY YEAR"),
    a.Opt("allusers", 4, help="every user, not only those active in the last day"),
    a.Opt("usage", 2, help="the usage columns"),
    a.Opt("priority", 4, help="the priority columns"),
    a.Opt("quotas", 1, help="the groups' quota columns"),
    a.Opt("surplus", 2, help="the groups' surplus policy column"),
    a.Opt("sortkey", 2, help="the groups' sort key column"),
    a.Opt("groupid", 6, help="the group id column"),
    a.Opt("order", 1, help="the group order column"),
    a.Opt("hierarchical", 1, 0, ("heir",), help="users under their groups (the default)"),
    a.Opt("flat", 2, help="users not under their groups"),
    a.Opt("grouprollup", 1, help="a group's figures the sums of its users' and subgroups'"),
    a.Opt("grouporder", 6, help="the groups first, then the users"),
    a.Opt("name", 1, 1, help="the negotiator of this name", metavar="NAME"),
    a.Opt("pool", 1, 1, help="accepted; condorx asks this machine's pool", metavar="HOST"),
    a.Opt("negotiator", 3, help="ask the negotiator (as condorx always does)"),
]
USAGE = "condor_userprio [options] [edit-option | display-options [usernames]]"


@dataclass(frozen=True)
class Column:
    width: int
    heads: tuple[str, str]
    cell: Any  # (record, last_update) -> text


def _num(width: int, places: int, attr: str) -> Column:
    return Column(width, ("", ""), lambda r, _: _float(r.get(attr), width, places))


def _float(value: Any, width: int, places: int) -> str:
    text = f"{float(value or 0):{width}.{places}f}"
    return text if len(text) <= width else f"{float(value or 0):.{max(width - 6, 1)}g}"


def _since(rec: dict[str, Any], now: float) -> str:
    since = int(now) - int(rec.get("LastUsageTime") or 0)
    return "<now>" if since <= 0 else format_time_nosecs(since)


def _date_year(t: Any) -> str:
    return format_date_year(int(t)) if t else ""


# HTCondor's columns, in its fixed order (the quota and group columns, for pools with
# accounting groups, are userprio_groups's).
COLUMNS = {
    "Priority": Column(12, ("Effective", "Priority"), lambda r, _: _float(r["Priority"], 12, 2)),
    "RealPrio": Column(8, ("Real", "Priority"), lambda r, _: _float(r["RealPriority"], 8, 2)),
    "Factor": Column(9, ("Priority", "Factor"), lambda r, _: _float(r["PriorityFactor"], 9, 2)),
    "ResUsed": Column(
        6, ("Wghted", "In Use"), lambda r, _: _float(r["WeightedResourcesUsed"], 6, 0)
    ),
    "WtResUsed": Column(
        12,
        ("Total Usage", "(wghted-hrs)"),
        lambda r, _: _float(r["WeightedAccumulatedUsage"] / 3600, 12, 2),
    ),
    "UseTime1": Column(16, ("Usage", "Start Time"), lambda r, _: _date_year(r["BeginUsageTime"])),
    "UseTime2": Column(16, ("Last", "Usage Time"), lambda r, _: _date_year(r["LastUsageTime"])),
    "UseDeltaT": Column(10, ("Time Since", "Last Usage"), lambda r, now: _since(r, now)),
    "Floor": Column(9, ("Submitter", "Floor"), lambda r, _: ""),
    "Ceiling": Column(9, ("Submitter", "Ceiling"), lambda r, _: ""),
}
SETS = {
    "most": ["Priority", "Factor", "ResUsed", "WtResUsed", "UseDeltaT", "Floor", "Ceiling"],
    "priority": ["Priority", "RealPrio", "Factor", "Floor", "Ceiling"],
    "usage": ["ResUsed", "WtResUsed", "UseTime1", "UseTime2", "Floor", "Ceiling"],
    "all": list(COLUMNS),
}
_EDITS = [
    ("setprio", "priority", "The priority of {u} was set to {v:f}", "SET_PRIORITY"),
    ("setfactor", "factor", "The priority factor of {u} was set to {v:f}", "SET_PRIORITYFACTOR"),
    ("setaccum", "accumulated", "The Accumulated Usage of {u} was set to {v:f}", "SET_ACCUMUSAGE"),
    ("setbegin", "begin", "The Begin Usage Time of {u} was set to {v:.0f}", "SET_BEGINTIME"),
    ("setlast", "last", "The Last Usage Time of {u} was set to {v:.0f}", "SET_LASTTIME"),
    ("resetusage", "reset", "The accumulated usage of {u} was reset", "RESET_USAGE"),
    ("delete", "delete", "The accountant record named {u} was deleted", "DELETE_USER"),
]


# user_prio.cpp has no -help: its usage() exits 1, on stderr.
@a.command(
    TOOL,
    OPTIONS,
    USAGE,
    [("USER", "only these users (name or name@domain)")],
    help_exit=1,
    help_to_stderr=True,
)
def main(ctx: a.Context) -> None:
    """Show or change the users' priorities."""
    opts = a.parsed(ctx)
    cfg = load(TOOL)
    domain = cfg.get("UID_DOMAIN") or cfg.get("FULL_HOSTNAME") or "localhost"
    for option, action, said, command in _EDITS:
        if option in opts.values:
            _edit(cfg, opts, option, action, said, command)
            return
    if "resetall" in opts.flags:
        run_edit(cfg, "resetall", "", None, "RESET_ALL_USAGE", opts.value("name"))
        print("The accumulated usage was reset for all users")
        return
    reply = run_client(negotiator.priorities, cfg, opts.value("name"), tool=TOOL)
    # A group's record is named without a domain, as HTCondor's are.
    records = [
        r if r.get("IsAccountingGroup") else dict(r, Name=f"{r['Name']}@{domain}")
        for r in reply.users
    ]
    groups = has_groups(records)
    if groups and "grouprollup" in opts.flags:
        records = rollup(records)
    since = _active_since(opts, reply.last_update)
    if "long" in opts.flags or "autoformat" in opts.values:
        _ads(_chosen(records, opts, since), opts)
        if "long" in opts.flags and reply.limits:
            # The pool's concurrency limits in use, which HTCondor's prints only in its
            # single-ad form (-long -legacy): one more ad, after the records'.
            sys.stdout.write("\n" + ClassAd(dict(reply.limits)).printOld())
        return
    if groups:
        # The table itself leaves out what was not used since `since`, as HTCondor's
        # does (each record counts in the groups' numbering all the same).
        order = [name for name, _ in opts.order]
        shown = view(opts.flags, order, -1 if since is None else since)
        lines = table(tree_order(_selected(records, opts)), shown, reply.last_update)
        print("\n".join(lines), end="\n" if lines else "")
        return
    records = _chosen(records, opts, since)
    if not records and not reply.users:
        return  # HTCondor's prints nothing when the accountant has no one
    kind = next((k for k in ("all", "usage", "priority", "most") if k in opts.flags), "most")
    _table(records, SETS[kind], reply.last_update, "allusers" in opts.flags)


def _edit(cfg: Config, opts: a.Parsed, option: str, action: str, said: str, command: str) -> None:
    given = opts.values[option]
    user, value = given[0], (float(given[1]) if len(given) > 1 else None)
    if "@" not in user:
        what = "delete" if option == "delete" else "update the priority of"
        fail(
            f"{TOOL}: You must specify the full name of the submittor you wish\n"
            f"\tto {what} (user@uid.domain or user@full.host.name)"
        )
    if option == "setfactor" and value is not None and value < 1:
        fail("Priority factors must be greater than or equal to 1.")
    run_edit(cfg, action, user.split("@", 1)[0], value, command, opts.value("name"))
    print(said.format(u=user, v=value or 0.0))


def run_edit(
    cfg: Config, action: str, user: str, value: float | None, command: str, name: str | None
) -> None:
    try:
        trio.run(negotiator.edit_user, cfg, action, user, value, name)
    except (RemoteError, WireError, OSError) as e:
        fail(f"failed to send {command} command to negotiator\n{e}")


def _active_since(opts: a.Parsed, now: float) -> float | None:
    """Since when a record must have been used to be shown (None: -allusers)."""
    if "allusers" in opts.flags:
        return None
    if opts.values.get("activefrom"):
        month, day, year = (int(x) for x in opts.values["activefrom"][:3])
        year += 2000 if year < 50 else 1900 if year < 100 else 0
        return time.mktime((year, month, day, 0, 0, 0, 0, 0, -1))
    return now - 86400


def _chosen(
    records: list[dict[str, Any]], opts: a.Parsed, since: float | None
) -> list[dict[str, Any]]:
    records = _selected(records, opts)
    if since is not None:
        records = [r for r in records if r["LastUsageTime"] and r["LastUsageTime"] >= since]
    return sorted(records, key=lambda r: (r["Priority"], r["Name"]))


def _selected(records: list[dict[str, Any]], opts: a.Parsed) -> list[dict[str, Any]]:
    """The records of the users named, of which -constraint is true."""
    names = {n.split("@", 1)[0] for n in opts.positional}
    if names:
        records = [r for r in records if r["Name"].split("@", 1)[0] in names]
    constraint = opts.value("constraint")
    if constraint:
        try:
            tree = ExprTree(constraint)
        except ValueError as e:
            fail(f"{TOOL}: -constraint {constraint!r}: {e}")
        records = [r for r in records if tree.eval(ClassAd(r)) is True]
    return records


def _ads(records: list[dict[str, Any]], opts: a.Parsed) -> None:
    ads = [ClassAd(r) for r in records]
    if "autoformat" in opts.values:
        af = AutoFormat(opts.values["autoformat"], opts.quals.get("autoformat", ""))
        sys.stdout.write("".join(af.render(ads)))
    else:
        sys.stdout.write("".join("\n" + ad.printOld() for ad in ads))


def _table(records: list[dict[str, Any]], names: list[str], now: float, everyone: bool) -> None:
    columns = [COLUMNS[n] for n in names]
    footer = f"Number of users: {len(records)}"
    width = min(max([10, len(footer)] + [len(r["Name"]) for r in records]), 99)
    print(f"Last Priority Update: {format_date(now)}")
    for i, first in ((0, " " * width), (1, f"{'User Name':<{width}}")):
        print(first + "".join(" " + _centre(c.heads[i], c.width) for c in columns))
    dashes = "-" * width + "".join(" " + "-" * c.width for c in columns)
    print(dashes)
    for rec in records:
        print(
            f"{rec['Name']:<{width}}"
            + "".join(" " + f"{c.cell(rec, now):>{c.width}}" for c in columns)
        )
    print(dashes)
    totals = {
        "ResUsed": _float(sum(r["WeightedResourcesUsed"] for r in records), 6, 0),
        "WtResUsed": _float(sum(r["WeightedAccumulatedUsage"] for r in records) / 3600, 12, 2),
        "UseDeltaT": "" if everyone else format_time_nosecs(86400),
    }
    print(
        f"{footer:<{width}}"
        + "".join(" " + f"{totals.get(n, ''):>{COLUMNS[n].width}}" for n in names).rstrip()
    )


def _centre(text: str, width: int) -> str:
    left = (width - len(text)) // 2
    return (" " * left + text).ljust(width)


if __name__ == "__main__":
    main()
