"""The job router's tools (Job Router manual).

condor_router_q [-S] [-route NAME] [-json]
    the routed copies in the queue, one line each; -S sums them by route and state
condor_router_history [-start "YYYY-MM-DD HH:MM"] [-end ...] [-days N] [-json]
    per route, the hours its copies ran and how many completed or were aborted,
    from the schedd's history file (the last day unless told otherwise)
"""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import datetime
from typing import Any

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient, history_ads
from condorx.language.attrs import JobStatus
from condorx.language.config import Config

COPIES = "RoutedFromJobId =!= undefined"
FIELDS = ["ClusterId", "ProcId", "RoutedFromJobId", "Owner", "RouteName", "JobStatus"]
STATE = {1: "I", 2: "R", 3: "X", 4: "C", 5: "H", 6: "E", 7: "S"}
RULE = "-" * 55
Q_OPTIONS = [
    a.Opt("S", 1, help="summarize the state of the jobs on each route"),
    a.Opt("route", 2, 1, help="display only the jobs on this route", metavar="NAME"),
    a.Opt("json", 1, help="print the table as JSON (condorx's own)"),
]
HISTORY_OPTIONS = [
    a.Opt("start", 2, 1, help="set the start time of the summary", metavar='"YYYY-MM-DD HH:MM"'),
    a.Opt(
        "end",
        2,
        1,
        help="set the end time of the summary (default: now; condorx's own)",
        metavar='"YYYY-MM-DD HH:MM"',
    ),
    a.Opt("days", 1, 1, help="set the number of days to summarize (default 1)", metavar="N"),
    a.Opt("json", 1, help="print the table as JSON (condorx's own)"),
]


@a.command("condor_router_q", Q_OPTIONS, "condor_router_q [-S] [-route NAME] [-json]")
def q(ctx: a.Context) -> None:
    """Show the jobs the job router has routed, and where."""
    opts = a.parsed(ctx)
    cfg = load("condor_router_q")
    rows = run_client(_copies, cfg, tool="condor_router_q")
    wanted = opts.value("route")
    if wanted is not None:
        rows = [r for r in rows if r["route"] == wanted]
    if "json" in opts.flags:
        print(json.dumps(_summary(rows) if "S" in opts.flags else rows, indent=1))
    elif "S" in opts.flags:
        print(f"{'JOBS':>7} ST {'Route':<10} GridResource")
        for r in _summary(rows):
            print(f"{r['jobs']:>7} {r['state']:>2} {r['route']:<10} {r['grid_resource']}")
    else:
        print(f"{'ID':>8} {'ROUTED':>8} {'OWNER':<12} {'ROUTE':<12} ST GRID_RESOURCE")
        for r in rows:
            print(
                f"{r['id']:>8} {r['routed_from']:>8} {r['owner']:<12} {r['route']:<12} "
                f"{r['state']:>2} {r['grid_resource']}"
            )


async def _copies(cfg: Config) -> list[dict[str, Any]]:
    client = ScheddClient(cfg)
    out = []
    async for chunk in client.query_rows([*FIELDS, "GridResource"], COPIES):
        for cluster, proc, source, owner, route, status, grid in chunk:
            out.append(
                {
                    "id": f"{cluster}.{proc}",
                    "routed_from": str(source),
                    "owner": str(owner),
                    "route": str(route),
                    "state": STATE.get(status, "?"),
                    "grid_resource": grid if isinstance(grid, str) else "",
                }
            )
    return out


def _summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    counts: Counter[tuple[str, str, str]] = Counter(
        (r["route"], r["state"], r["grid_resource"]) for r in rows
    )
    return [
        {"jobs": n, "state": state, "route": route, "grid_resource": grid}
        for (route, state, grid), n in sorted(counts.items())
    ]


@a.command(
    "condor_router_history",
    HISTORY_OPTIONS,
    'condor_router_history [-start "YYYY-MM-DD HH:MM"] [-end "..."] [-days N] [-json]',
    # getopt reads -help as -h -e -l -p and fails (1); -h and --help exit 0; on stderr.
    help_exit=(1, 0),
    help_to_stderr=True,
)
def history(ctx: a.Context) -> None:
    """Show per route the hours, completed and aborted jobs of routed copies."""
    opts = a.parsed(ctx)
    cfg = load("condor_router_history")
    end = _when(opts.value("end"), "end") if opts.value("end") else time.time()
    days = opts.value("days")
    try:
        span = float(days) * 86400 if days else 86400.0
    except ValueError:
        fail(f"condor_router_history: -days {days!r} is not a number")
    start = _when(opts.value("start"), "start") if opts.value("start") else end - span
    table = _per_route(history_ads(cfg), start, end)
    if "json" in opts.flags:
        print(json.dumps({"start": int(start), "end": int(end), "routes": table}, indent=1))
        return
    print(f"Routed job history from {_show(start)} to {_show(end)}\n")
    print("Site            Hours    Jobs    Runs")
    print("                      Completed Aborted")
    print(RULE)
    for r in table:
        print(_row(r["route"], r["hours"], r["completed"], r["aborted"]))
    print(RULE)
    print(
        _row(
            "TOTAL",
            sum(r["hours"] for r in table),
            sum(r["completed"] for r in table),
            sum(r["aborted"] for r in table),
        )
    )


def _row(name: str, hours: float, completed: int, aborted: int) -> str:
    return f"{name:<15}{round(hours):>6}{completed:>8}{aborted:>6}"


def _per_route(ads: Any, start: float, end: float) -> list[dict[str, Any]]:
    hours: dict[str, float] = {}
    completed: Counter[str] = Counter()
    aborted: Counter[str] = Counter()
    for ad in ads:
        when = ad.get("CompletionDate") or ad.get("EnteredCurrentStatus")
        if not isinstance(when, int) or when > end:
            continue
        if when < start:
            break  # newest first: the rest is older still
        route = ad.get("RouteName")
        if ad.get("RoutedFromJobId") is None or not isinstance(route, str):
            continue
        wall = ad.get("RemoteWallClockTime")
        hours[route] = hours.get(route, 0.0) + (
            float(wall) / 3600 if isinstance(wall, int | float) else 0.0
        )
        if ad.get("JobStatus") == JobStatus.COMPLETED:
            completed[route] += 1
        elif ad.get("JobStatus") == JobStatus.REMOVED:
            aborted[route] += 1
    names = sorted(set(hours) | set(completed) | set(aborted))
    return [
        {
            "route": n,
            "hours": round(hours.get(n, 0.0), 2),
            "completed": completed[n],
            "aborted": aborted[n],
        }
        for n in names
    ]


def _when(text: str | None, which: str) -> float:
    try:
        return datetime.strptime(str(text), "%Y-%m-%d %H:%M").timestamp()
    except ValueError:
        fail(f'condor_router_history: -{which} wants "YYYY-MM-DD HH:MM", not {text!r}')


def _show(t: float) -> str:
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M")
