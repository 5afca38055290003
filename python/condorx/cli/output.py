"""Output for the CLIs: rich tables for people, JSON for programs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

if TYPE_CHECKING:
    from condorx.bench.run import Result as BenchResult

console = Console()


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    t = Table(title=title)
    for c in columns:
        t.add_column(c)
    for r in rows:
        t.add_row(*("" if v is None else str(v) for v in r))
    console.print(t)


def as_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, default=str))


def progress() -> Progress:
    """A progress bar on stderr, shown only when stderr is a terminal."""
    err = Console(stderr=True)
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
        transient=True,
    )


def bench_result(r: BenchResult) -> None:
    """`condorx bench`'s figures, one row each."""
    w = r.workload
    preemption = "considered" if r.preemption else "off"
    times = ", ".join(f"{t:.3f}" for t in r.cycle_times)
    rows = [
        ("slots", f"{w.slots:,}"),
        ("idle jobs", f"{w.jobs:,}"),
        ("submitters", f"{w.users:,}"),
        ("autoclusters (requested / found)", f"{w.clusters:,} / {r.clusters:,}"),
        ("seed", w.seed),
        ("preemption", preemption),
        ("pool generated in", f"{r.generate_seconds:.2f} s"),
        ("cycles", f"{r.cycles} ({times} s)"),
        ("cycle time (median)", f"{r.cycle_seconds:.3f} s"),
        ("matches per cycle", f"{r.matches:,}"),
        ("matches per second", f"{r.matches_per_second:,.0f}"),
        ("jobs rejected (no match or no share left)", f"{r.rejections:,}"),
        ("pairs evaluated", f"{r.pairs_evaluated:,} ({r.pairs_per_second:,.0f}/s)"),
        ("resident memory after pool", f"{r.rss_after_pool_mib:,.0f} MiB"),
        ("peak resident memory", f"{r.peak_rss_mib:,.0f} MiB"),
    ]
    rows += [(f"  median cycle: {name}", f"{secs:.3f} s") for name, secs in r.phases.items()]
    if not r.all_cycles_alike:
        rows.append(("warning", "cycles differed in matches, rejections or pairs"))
    table("negotiation benchmark", ("figure", "value"), rows)
