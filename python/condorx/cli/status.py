"""condor_status: the pool's slots (or schedds) as the collector knows them, in HTCondor's
default view with its totals table, or as ClassAds (-l, -json) or chosen expressions
(-af)."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.cli.timefmt import duration as _duration
from condorx.client.collector import CollectorClient

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

TOOL = "condor_status"
OPTIONS = [
    a.Opt("constraint", 5, 1, help="only the ads this expression is true of", metavar="EXPR"),
    a.Opt("long", 1, help="display entire ClassAds (no totals)"),
    a.Opt(
        "autoformat",
        2,
        -1,
        ("af",),
        help="display these attributes or expressions, space-separated",
        metavar="EXPR...",
    ),
    a.Opt("totals", 2, help="display totals only"),
    a.Opt("schedd", 2, help="query condor_schedd ClassAds"),
    a.Opt("json", 2, help="display entire ClassAds in JSON format"),
    a.Opt(
        "pool", 2, 1, help="query this central manager, not COLLECTOR_HOST", metavar="HOST[:PORT]"
    ),
    a.Opt("negotiator", 3, help="query condor_negotiator ClassAds"),
    a.Opt("master", 3, help="query condor_master ClassAds"),
    a.Opt("submitters", 3, help="query ClassAds sent by submitters"),
    a.Opt("any", 3, help="query all ClassAds"),
]
USAGE = f"{TOOL} [options] [name ...]"
ARGUMENTS = [("name", "only the slots or machines of this name (Name or Machine)")]
SLOT = [
    "Name",
    "OpSys",
    "Arch",
    "State",
    "Activity",
    "LoadAvg",
    "Memory",
    "time() - EnteredCurrentActivity",
]
TOTALS = ["OpSys", "Arch", "State"]
STATES = ["Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Backfill", "Drained"]
SCHEDD = ["Name", "Machine", "TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs"]
SUBMITTER = ["Name", "Machine", "RunningJobs", "IdleJobs", "HeldJobs"]


@a.command(TOOL, OPTIONS, USAGE, ARGUMENTS, help_to_stderr=True)  # status.cpp: usage on stderr
def main(ctx: a.Context) -> None:
    """Show the pool's slots (HTCondor's condor_status options)."""
    opts = a.parsed(ctx)
    cfg = load(TOOL)
    client = CollectorClient(cfg, address=opts.value("pool"))
    kind = _kind(opts)
    parts = [f"({c})" for c in opts.values.get("constraint", [])]
    parts += [f'(Name == "{w}" || Machine == "{w}")' for w in opts.positional]
    constraint = " && ".join(parts) or None
    if "long" in opts.flags or "json" in opts.flags:
        ads = run_client(client.query_ads, kind, constraint, tool=TOOL)
        if "json" in opts.flags:
            json.dump([json.loads(ad.printJson()) for ad in ads], sys.stdout, indent=2)
            print()
        else:
            sys.stdout.write("".join(ad.printOld() + "\n" for ad in ads))
    elif "autoformat" in opts.values:
        exprs = opts.values["autoformat"]
        if not exprs:
            fail(f"{TOOL}: -af needs at least one attribute or expression")
        _autoformat(run_client(client.query_rows, kind, exprs, constraint, tool=TOOL), opts)
    else:
        _table(client, kind, constraint, "totals" in opts.flags)


def _table(client: CollectorClient, kind: str, constraint: str | None, totals: bool) -> None:
    """The default views. As HTCondor's, nothing at all (no heading, no totals) when no
    ad matches."""
    if kind == "scheduler":
        rows = run_client(client.query_rows, kind, SCHEDD, constraint, tool=TOOL)
        if rows:
            _schedd_view(rows)
    elif kind == "submitter":
        rows = run_client(client.query_rows, kind, SUBMITTER, constraint, tool=TOOL)
        if rows:
            _submitter_view(rows)
    elif kind in ("negotiator", "daemonmaster"):
        rows = run_client(client.query_rows, kind, ["Name", "MyAddress"], constraint, tool=TOOL)
        if rows:
            print(f"{'Name':<40} Address\n")
        for name, address in rows:
            print(f"{str(name):<40} {address}")
    elif totals:
        # Only what the totals count travels: 100,000 slots' names and loads need not.
        rows = run_client(client.query_rows, kind, TOTALS, constraint, tool=TOOL)
        if rows:
            _totals(rows)
    else:
        rows = run_client(client.query_rows, kind, SLOT, constraint, tool=TOOL)
        if rows:
            _slot_view(rows)
            _totals([row[1:4] for row in rows])


def _kind(opts: a.Parsed) -> str:
    if "schedd" in opts.flags:
        return "scheduler"
    if "submitters" in opts.flags:
        return "submitter"
    if "negotiator" in opts.flags:
        return "negotiator"
    if "master" in opts.flags:
        return "daemonmaster"
    return "" if "any" in opts.flags else "machine"


def _autoformat(rows: list[list[Any]], opts: a.Parsed) -> None:
    """-af's rows, laid out as its qualifiers say (`-af:t`, `-af:lh`, ...): the collector
    evaluated each expression."""
    from condorx.cli import adformat  # only -af needs it: not on the table's path

    af = adformat.AutoFormat(opts.values["autoformat"], opts.quals.get("autoformat", ""))
    quote = af.quoted  # V: strings as ClassAd strings, quoted
    text = [
        [adformat.value_text(v, True) if quote and isinstance(v, str) else _af(v) for v in r]
        for r in rows
    ]
    sys.stdout.write("".join(af.render_cells(af.labelled(text))))


def _af(v: Any) -> str:
    if v is None:
        return "undefined"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(getattr(v, "text", v))


def _slot_view(rows: list[list[Any]]) -> None:
    print(
        f"{'Name':<30} {'OpSys':<10} {'Arch':<6} {'State':<9} {'Activity':<8} "
        f"{'LoadAv':>6} {'Mem':>6}   ActvtyTime\n"
    )
    for name, opsys, arch, state, activity, loadavg, mem, age in rows:
        loadav = f"{loadavg:.3f}" if isinstance(loadavg, int | float) else "?"
        print(
            f"{str(name):<30} {str(opsys):<10} {str(arch):<6} {str(state):<9} "
            f"{str(activity):<8} {loadav:>6} {str(mem):>6}  {_duration(age)}"
        )
    print()


def _totals(rows: list[list[Any]]) -> None:
    """The totals table, from each slot's TOTALS."""
    by: dict[str, Counter[str]] = {}
    for opsys, arch, state in rows:
        by.setdefault(f"{arch}/{opsys}", Counter())[str(state)] += 1
    head = "".join(f" {s:>9}" for s in ["Total", *STATES])
    print(f"{'':>16}{head}\n")
    overall: Counter[str] = Counter()
    for platform, counts in sorted(by.items()):
        overall.update(counts)
        print(f"{platform:>16}{_counts(counts)}")
    print(f"\n{'Total':>16}{_counts(overall)}")


def _counts(c: Counter[str]) -> str:
    return f" {sum(c.values()):>9}" + "".join(f" {c.get(s, 0):>9}" for s in STATES)


def _schedd_view(rows: list[list[Any]]) -> None:
    print(f"{'Name':<30} {'Machine':<24} {'RunningJobs':>11} {'IdleJobs':>9} {'HeldJobs':>9}\n")
    for name, machine, running, idle, held in rows:
        print(
            f"{str(name):<30} {str(machine):<24} {running or 0:>11} {idle or 0:>9} {held or 0:>9}"
        )
    stamp = time.strftime("%m/%d %H:%M")
    print(f"\n{len(rows)} schedds as of {stamp}")


def _submitter_view(rows: list[list[Any]]) -> None:
    """HTCondor's submitter view: Name and Machine as wide as they need, the job counts,
    then the totals by submitter (status.cpp's submitterNormal print format and
    totals.cpp's ScheddSubmittorTotal)."""
    ads = sorted(
        (str(name), str(machine), (_count(running), _count(idle), _count(held)))
        for name, machine, running, idle, held in rows
    )
    name_w = max(len("Name"), *(len(a[0]) for a in ads))
    machine_w = max(len("Machine"), *(len(a[1]) for a in ads))
    print(f"{'Name':<{name_w}} {'Machine':<{machine_w}} RunningJobs   IdleJobs   HeldJobs\n")
    for name, machine, counts in ads:
        print(f"{name:<{name_w}} {machine:<{machine_w}} {_job_counts(counts)}")
    # The totals' keys are the submitters' names, one line each (one per schedd's ad
    # summed), then the pool's.
    key_w = max(len("Total"), name_w)
    print(f"\n{'':{key_w}}{'RunningJobs':>11} {'IdleJobs':>10} {'HeldJobs':>10}\n")
    by_name: dict[str, tuple[int, int, int]] = {}
    for name, _, counts in ads:
        was = by_name.get(name, (0, 0, 0))
        by_name[name] = (was[0] + counts[0], was[1] + counts[1], was[2] + counts[2])
    for name, counts in sorted(by_name.items()):
        print(f"{name:>{key_w}}{_job_counts(counts)}")
    total = tuple(sum(a[2][k] for a in ads) for k in range(3))
    print(f"\n{'Total':>{key_w}}{_job_counts(total)}")


def _job_counts(counts: tuple[int, ...]) -> str:
    running, idle, held = counts
    return f"{running:11d} {idle:10d} {held:10d}"


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


if __name__ == "__main__":
    main()
