"""condor_watch_q: follow jobs through their job event logs, a table of their states by
batch (or log, or cluster), a progress bar and a summary, until an -exit condition holds.

condor_watch_q [-users U...] [-clusters ID...] [-files LOG...] [-batches NAME...]
               [-exit GROUPER,STATUS[,CODE]]... [-groupby batch|log|cluster] [-no-table] ...

As HTCondor's (condor_watch_q): the schedd is asked once which logs the chosen jobs write
(by owner, cluster or batch name; the user's own jobs by default), and from then on only
the logs are read, so jobs that leave the queue are still followed. On a terminal the
display is redrawn in place; otherwise each look is printed in full, ended by `...`.
"""

from __future__ import annotations

import getpass
import os
import shutil
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from condorx.cli import args as a
from condorx.cli.common import load
from condorx.client.schedd import ScheddClient
from condorx.language import eventlog
from condorx.language.config import Config
from condorx.transport.wire import RemoteError, WireError

TOOL = "condor_watch_q"
# The states a job is in, in the table's column order.
REMOVED, HELD, SUSPENDED, IDLE, INPUT, RUN, OUTPUT, DONE = (
    "REMOVED",
    "HELD",
    "SUSPENDED",
    "IDLE",
    "INPUT",
    "RUN",
    "OUTPUT",
    "DONE",
)
STATES = (REMOVED, HELD, SUSPENDED, IDLE, INPUT, RUN, OUTPUT, DONE)
ACTIVE = {IDLE, INPUT, RUN, OUTPUT, HELD, SUSPENDED}
ALWAYS_SHOWN = {IDLE, RUN, DONE, "TOTAL", "JOB_IDS"}
_BY_EVENT = {
    eventlog.SUBMIT: IDLE,
    eventlog.EVICTED: IDLE,
    eventlog.UNSUSPENDED: IDLE,
    eventlog.RELEASED: IDLE,
    eventlog.SHADOW_EXCEPTION: IDLE,
    eventlog.RECONNECT_FAILED: IDLE,
    eventlog.TERMINATED: DONE,
    eventlog.EXECUTE: RUN,
    eventlog.HELD: HELD,
    eventlog.SUSPENDED: SUSPENDED,
    eventlog.ABORTED: REMOVED,
}
_BAR = (
    (IDLE, "-"),
    (INPUT, ">"),
    (RUN, "="),
    (OUTPUT, ">"),
    (DONE, "#"),
    (HELD, "!"),
    (SUSPENDED, "!"),
    (REMOVED, "!"),
)
_SUMMARY = (
    ((DONE,), "completed"),
    ((REMOVED,), "removed"),
    ((IDLE,), "idle"),
    ((INPUT, RUN, OUTPUT), "running"),
    ((HELD,), "held"),
    ((SUSPENDED,), "suspended"),
)
_GROUPERS = {"all": all, "any": any, "none": lambda xs: not any(xs)}
_CHECKS = {
    "active": lambda s: s in ACTIVE,
    "done": lambda s: s == DONE,
    "idle": lambda s: s == IDLE,
    "held": lambda s: s == HELD,
}
_KEYS = {"batch": "BATCH", "log": "LOG", "cluster": "CLUSTER"}

OPTIONS = [
    a.Opt("users", 1, -1, help="follow these users' jobs", metavar="USER..."),
    a.Opt("clusters", 1, -1, help="follow these clusters", metavar="ID..."),
    a.Opt("larger-than", 1, 1, help="only clusters from this id on", metavar="ID"),
    a.Opt("files", 1, -1, help="follow the jobs of these event logs", metavar="LOG..."),
    a.Opt("batches", 1, -1, help="follow the jobs of these batches", metavar="NAME..."),
    a.Opt("collector", 4, 1, help="accepted; condorx asks this machine's pool", metavar="HOST"),
    a.Opt("schedd", 2, 1, help="the schedd to ask (its address)", metavar="NAME"),
    a.Opt(
        "exit",
        3,
        1,
        help="exit when GROUPER (all, any, none) of the jobs are STATUS (active,"
        " done, idle, held), with CODE (0)",
        metavar="GROUPER,STATUS[,CODE]",
    ),
    a.Opt("exit-on-key-press", 6, help="exit when a key is pressed (the default on a terminal)"),
    a.Opt("no-exit-on-key-press", 9, help="do not exit when a key is pressed"),
    a.Opt("groupby", 1, 1, help="one row per batch (default), log or cluster", metavar="KEY"),
    a.Opt("table", 1, help="show the table (the default)"),
    a.Opt("no-table", 4, help="do not show the table"),
    a.Opt("progress", 1, help="show the progress bar (the default)"),
    a.Opt("no-progress", 4, help="do not show the progress bar"),
    a.Opt("row-progress", 2, help="a progress bar on each row (the default)"),
    a.Opt("no-row-progress", 5, help="no progress bar on the rows"),
    a.Opt("summary", 2, help="show the summary line (the default)"),
    a.Opt("no-summary", 4, help="do not show the summary line"),
    a.Opt("summary-type", 8, 1, help="totals (default) or percentages", metavar="TYPE"),
    a.Opt("updated-at", 2, help="show when the display was made (the default)"),
    a.Opt("no-updated-at", 4, help="do not show when the display was made"),
    a.Opt("abbreviate", 2, help="shorten log paths (the default)"),
    a.Opt("no-abbreviate", 4, help="show log paths whole"),
    a.Opt("color", 4, help="colour the output (the default on a terminal)"),
    a.Opt("no-color", 4, help="no colour"),
    a.Opt("refresh", 3, help="redraw in place (the default on a terminal)"),
    a.Opt("no-refresh", 5, help="print each look in full, ended by ..."),
    a.Opt("interval", 3, 1, help="seconds between looks (0.5)", metavar="SECONDS"),
    a.Opt("debug", 1, help="accepted"),
]
USAGE = "condor_watch_q [-users U...] [-clusters ID...] [-files LOG...] [-exit G,S[,C]] ..."


@dataclass
class Cluster:
    id: int
    log: str
    batch: str | None
    procs: int | None  # how many the queue said it has, when it was asked
    states: dict[int, str] = field(default_factory=dict)

    @property
    def jobs(self) -> int:
        return self.procs if self.procs is not None else len(self.states)

    def done(self) -> bool:
        return all(s in (DONE, REMOVED) for s in self.states.values())


@dataclass
class Watch:
    logs: dict[str, eventlog.Tail]
    batches: dict[int, str | None]
    procs: dict[int, int]
    only: set[int] | None  # the clusters to follow (None: all the logs tell of)
    since: int | None
    clusters: dict[int, Cluster] = field(default_factory=dict)

    def read(self) -> list[str]:
        """Every event the logs have now; the problems met, as lines to show."""
        problems = []
        for path, tail in self.logs.items():
            try:
                events = tail.read()
            except (OSError, eventlog.EventLogError) as e:
                problems.append(f"ERROR: Failed to parse event from {path}. Reason: {e}")
                continue
            for ev in events:
                self._note(path, ev)
        return problems

    def _note(self, path: str, ev: eventlog.Event) -> None:
        if self.only is not None and ev.cluster not in self.only:
            return
        if self.since is not None and ev.cluster < self.since:
            return
        state = _BY_EVENT.get(ev.number)
        if ev.number == eventlog.FILE_TRANSFER:
            text = (ev.text + " " + " ".join(ev.body)).lower()
            if "started" in text:
                state = INPUT if "input" in text else OUTPUT if "output" in text else None
        if state is None:
            return
        cluster = self.clusters.get(ev.cluster)
        if cluster is None:
            cluster = Cluster(
                ev.cluster, path, self.batches.get(ev.cluster), self.procs.get(ev.cluster)
            )
            self.clusters[ev.cluster] = cluster
        cluster.states[ev.proc] = state

    def states(self) -> Iterable[str]:
        for c in self.clusters.values():
            yield from c.states.values()


def discover(
    cfg: Config, opts: a.Parsed
) -> tuple[dict[str, bool], dict[int, str | None], dict[int, int]]:
    """Which logs to read (path -> whether it came from the queue), the clusters' batch
    names and proc counts, from one query of the schedd."""
    users = opts.values.get("users", [])
    clusters = opts.values.get("clusters", [])
    batches = opts.values.get("batches", [])
    if not (users or clusters or batches or opts.values.get("files")):
        users = [getpass.getuser()]
    clauses = [f'Owner == "{u}"' for u in users] + [f"ClusterId == {int(c)}" for c in clusters]
    clauses += [f'JobBatchName == "{b}"' for b in batches]
    logs = {os.path.abspath(f): False for f in opts.values.get("files", [])}
    names: dict[int, str | None] = {}
    procs: dict[int, int] = {}
    if not clauses:
        return logs, names, procs
    client = ScheddClient(cfg, opts.value("schedd"))
    exprs = ["ClusterId", "UserLog", "Iwd", "JobBatchName", "TotalSubmitProcs"]
    try:
        rows = trio.run(_query, client, exprs, " || ".join(clauses))
    except (OSError, WireError, RemoteError) as e:
        print(
            f"WARNING: Was not able to query to discover job event logs due to: {e}",
            file=sys.stderr,
        )
        return logs, names, procs
    warned: set[int] = set()
    queued: dict[int, int] = {}
    for cluster_id, log, iwd, batch, submitted in rows:
        cid = int(cluster_id)
        # The cluster's size: how many were submitted (jobs that already finished have
        # left the queue), else how many are in the queue.
        queued[cid] = queued.get(cid, 0) + 1
        size = submitted if isinstance(submitted, int) and not isinstance(submitted, bool) else 0
        procs[cid] = max(queued[cid], size)
        names[cid] = str(batch) if isinstance(batch, str) else None
        if not isinstance(log, str):
            if cid not in warned:
                print(
                    f"WARNING: Cluster {cid} does not have a job event log file"
                    " (set log=<path> in the submit description)",
                    file=sys.stderr,
                )
                warned.add(cid)
            continue
        logs[os.path.abspath(os.path.join(str(iwd or ""), log))] = True
    return logs, names, procs


async def _query(client: ScheddClient, exprs: list[str], constraint: str) -> list[list[Any]]:
    out: list[list[Any]] = []
    async for chunk in client.query_rows(exprs, constraint):
        out.extend(chunk)
    return out


def _n(value: object) -> int:
    return value if isinstance(value, int) else 0


def rows(watch: Watch, key: str) -> tuple[list[dict[str, object]], dict[str, int]]:
    """The table's rows (active groups first, then by their smallest cluster id), and the
    totals over all of them."""
    groups: dict[str, list[Cluster]] = {}
    for c in watch.clusters.values():
        group = {"BATCH": c.batch or f"ID: {c.id}", "LOG": c.log, "CLUSTER": str(c.id)}[key]
        groups.setdefault(group, []).append(c)
    totals = {s: 0 for s in (*STATES, "TOTAL")}
    out = []
    for group, clusters in groups.items():
        row: dict[str, object] = {s: 0 for s in STATES}
        active = []
        for c in clusters:
            for proc, state in c.states.items():
                row[state] = _n(row[state]) + 1
                if state in ACTIVE:
                    active.append((c.id, proc))
        row["TOTAL"] = sum(c.jobs for c in clusters)
        active.sort()
        ids = [f"{c}.{p}" for c, p in (active if len(active) <= 2 else [active[0], active[-1]])]
        row["JOB_IDS"] = (" ... " if len(active) > 2 else ", ").join(ids)
        row[key] = _short(group) if key == "LOG" else group
        for s in (*STATES, "TOTAL"):
            totals[s] += _n(row[s])
        first = min(c.id for c in clusters)
        busy = any(not c.done() for c in clusters)
        out.append((-(sys.maxsize - 1 - first) if busy else first, row))
    return [r for _, r in sorted(out, key=lambda x: x[0])], totals


def _short(path: str) -> str:
    """A log's path as the table shows it: relative to here when under it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def table(found: list[dict[str, object]], key: str, columns: int, row_bars: bool) -> list[str]:
    heads = [key] + [
        h
        for h in (*STATES, "TOTAL", "JOB_IDS")
        if h in ALWAYS_SHOWN or any(r.get(h) for r in found)
    ]
    cells = [[_cell(r.get(h)) for h in heads] for r in found]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(heads)]
    left = {key, "JOB_IDS"}

    def line(values: list[str]) -> str:
        return "  ".join(
            v.ljust(w) if h in left else v.rjust(w)
            for h, v, w in zip(heads, values, widths, strict=True)
        )

    lines = [line(heads).rstrip()] + [line(c) for c in cells]
    spare = columns - len(lines[1]) if len(lines) > 1 else columns
    if row_bars and spare > 10:
        for i, r in enumerate(found, start=1):
            lines[i] += bar(r, spare)
    else:
        lines = [ln[:columns] for ln in lines]
    return lines


def _cell(value: object) -> str:
    return ("-" if value in (0, None, "") else str(value)) + " "


def bar(counts: Mapping[str, object], width: int) -> str:
    inner = min(width, 79) - 2
    total = _n(counts.get("TOTAL"))
    lengths = [int(inner * _n(counts.get(s)) / total) if total else 0 for s, _ in _BAR]
    lengths[lengths.index(max(lengths))] += inner - sum(lengths)
    return "[" + "".join(ch * n for (_, ch), n in zip(_BAR, lengths, strict=True)) + "]"


def summary(totals: dict[str, int], width: int, percentages: bool) -> str:
    total = totals["TOTAL"]
    counts = [(sum(totals[s] for s in states), word) for states, word in _SUMMARY]
    if percentages:
        parts = [f"{round(100.0 * n / total) if total else 0}% {w}" for n, w in counts]
        return f"Total: {total} jobs; " + ", ".join(parts)
    for cut in range(10, 1, -1):
        text = f"Total: {total} jobs; " + ", ".join(f"{n} {w[:cut]}" for n, w in counts if n)
        if len(text) <= width or cut <= 2:
            return text
    return text


def display(watch: Watch, opts: a.Parsed, refresh: bool, key: str) -> str:
    columns, height = shutil.get_terminal_size()
    found, totals = rows(watch, key)
    parts: list[list[str]] = []
    if "no-table" not in opts.flags:
        parts.append(table(found, key, columns, "no-row-progress" not in opts.flags))
    if "no-progress" not in opts.flags:
        parts.append(["Total Progress: " + bar(totals, columns - 16)])
    if "no-summary" not in opts.flags:
        kind = opts.value("summary-type") or "totals"
        parts.append([summary(totals, columns, kind == "percentages")])
    if "no-updated-at" not in opts.flags:
        parts.append([f"Updated at {time.strftime('%Y-%m-%d %H:%M:%S')}"])
    lines = [ln for i, part in enumerate(parts) for ln in ([""] if i else []) + part]
    text = "\n".join(lines)
    if len(lines) > height:
        text = (
            "\n".join(lines[: height - 3])
            + "\nInsufficient terminal height to display full output!"
        )
    if not refresh:
        text += "\n..."
    if not opts.values.get("exit"):
        text += "\nPress ^C to exit"
    return text


def _exit_conditions(specs: list[str]) -> list[tuple[str, str, int]]:
    out = []
    for spec in specs:
        parts = spec.split(",")
        if len(parts) not in (2, 3):
            raise a.UsageError("invalid -exit specification")
        grouper, status = parts[0].lower(), parts[1].lower()
        if grouper not in _GROUPERS:
            raise a.UsageError(f'invalid GROUPER "{parts[0]}", must be one of {{all, any, none}}')
        if status not in _CHECKS:
            raise a.UsageError(
                f'invalid JOB_STATUS "{parts[1]}", must be one of {{active, done, idle, held}}'
            )
        try:
            code = int(parts[2]) if len(parts) == 3 else 0
        except ValueError:
            raise a.UsageError(f'exit_status must be an integer, but was "{parts[2]}"') from None
        out.append((grouper, status, code))
    return out


# condor_watch_q (argparse, add_help=False): -help exits 0, --help is unknown (2).
@a.command(TOOL, OPTIONS, USAGE, usage_exit=2, help_exit=(0, 2))
def main(ctx: a.Context) -> None:
    """Follow jobs through their job event logs."""
    opts = a.parsed(ctx)
    if opts.positional:
        raise a.UsageError(f"unrecognized arguments: {' '.join(opts.positional)}")
    if opts.values.get("clusters") and opts.value("larger-than"):
        print("ERROR: Use of both -clusters and -larger-than flag is prohibited.", file=sys.stderr)
        sys.exit(1)
    conditions = _exit_conditions(opts.values.get("exit", []))
    group = opts.value("groupby") or "batch"
    if group not in _KEYS:
        raise a.UsageError("argument -groupby: invalid choice (choose from batch, log, cluster)")
    cfg = load(TOOL)
    found, names, procs = discover(cfg, opts)
    only = {int(c) for c in opts.values.get("clusters", [])} or None
    if opts.values.get("batches"):
        only = (only or set()) | set(names)
    since = int(opts.value("larger-than") or 0) or None
    logs: dict[str, eventlog.Tail] = {}
    for path in found:
        if not Path(path).exists():
            print(
                f"WARNING: Could not open event log at {path} for reading, so it will be"
                " ignored. Reason: File path does not exist",
                file=sys.stderr,
            )
            continue
        logs[path] = eventlog.Tail(Path(path))
    if not logs:
        print("WARNING: No jobs found, exiting...", file=sys.stderr)
        sys.exit(0)
    watch = Watch(logs, names, procs, only, since)
    tty = sys.stdout.isatty()
    refresh = tty and "no-refresh" not in opts.flags
    interval = float(opts.value("interval") or 0.5)
    shown = 0
    try:
        while True:
            for problem in watch.read():
                print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} | {problem}", file=sys.stderr)
            text = display(watch, opts, refresh, _KEYS[group])
            if refresh and shown:
                sys.stdout.write(f"\033[{shown}A\r\033[J")
            print(text, flush=True)
            shown = text.count("\n") + 1
            states = list(watch.states())
            for grouper, status, code in conditions:
                if _GROUPERS[grouper](_CHECKS[status](s) for s in states):
                    now = time.strftime("%Y-%m-%d %H:%M:%S")
                    print(
                        f'Exiting with code {code} because of condition "{grouper} {status}"'
                        f" at {now}"
                    )
                    sys.exit(code)
            time.sleep(interval)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
