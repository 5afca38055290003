"""`condorx cron preview "<spec>" -n 10`: the next run times of a CronTab schedule, to
check it before a job relies on it."""

from __future__ import annotations

import time
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import click

from condorx.cli.common import load
from condorx.language.cron import CronError, CronSpec, next_runs, parse


@click.group()
def cron() -> None:
    """CronTab schedules (cron_minute ... cron_day_of_week)."""


@cron.command()
@click.argument("spec")
@click.option(
    "-n",
    "count",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many run times.",
)
@click.option(
    "--tz",
    default=None,
    help="Time zone (IANA name); default: the schedd's CRON_TIME_ZONE, else this machine's.",
)
@click.option("--after", type=int, default=None, help="Start from this Unix time (default: now).")
def preview(spec: str, count: int, tz: str | None, after: int | None) -> None:
    """Print the next run times of SPEC ("minute hour day-of-month month day-of-week")."""
    if tz is None:
        tz = (load("condorx cron").get("CRON_TIME_ZONE") or "").strip() or None
    try:
        schedule = parse(CronSpec.from_text(spec))
        times = next_runs(schedule, int(time.time()) if after is None else after, count, tz)
    except CronError as e:
        raise click.ClickException(str(e)) from None
    zone = _zone(tz)
    if not times:
        click.echo(f"{schedule} never runs.")
    for t in times:
        when = datetime.fromtimestamp(t, zone) if zone else datetime.fromtimestamp(t).astimezone()
        click.echo(f"{when:%a %Y-%m-%d %H:%M %Z}  ({t})")


def _zone(tz: str | None) -> ZoneInfo | None:
    if tz is None:
        return None
    try:
        return ZoneInfo(tz)
    except ZoneInfoNotFoundError:
        return None
