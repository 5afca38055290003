"""`condorx bench`: time negotiation cycles over a synthetic pool."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from condorx.bench import run as bench_run
from condorx.cli import output


@contextmanager
def _bar(description: str, total: int) -> Iterator[bench_run.Advance]:
    with output.progress() as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


@click.command()
@click.option("--slots", "-n", default=10_000, show_default=True, help="Slot ads in the pool.")
@click.option("--jobs", "-m", default=100_000, show_default=True, help="Idle jobs.")
@click.option("--users", "-u", default=50, show_default=True, help="Submitters.")
@click.option("--clusters", "-c", default=1_000, show_default=True, help="Autoclusters.")
@click.option("--cycles", "-k", default=3, show_default=True, help="Cycles to time.")
@click.option("--seed", default=1, show_default=True, help="Seed of the synthetic pool.")
@click.option(
    "--preemption/--no-preemption",
    default=False,
    show_default=True,
    help="Let the cycle preempt claimed slots (once negotiate() supports it).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bench(
    slots: int,
    jobs: int,
    users: int,
    clusters: int,
    cycles: int,
    seed: int,
    preemption: bool,
    as_json: bool,
) -> None:
    """Build a synthetic pool and time full negotiation cycles over it."""
    workload = bench_run.Workload(slots, jobs, users, clusters, seed)
    # Progress goes to stderr, and only for a person watching: --json output stays clean.
    report = bench_run.silent if as_json else _bar
    try:
        result = bench_run.run(workload, cycles, preemption, report=report)
    except ValueError as e:
        raise click.UsageError(str(e)) from e
    if as_json:
        output.as_json(result.to_dict())
        return
    output.bench_result(result)
