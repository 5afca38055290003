"""condor_q: the job queue, in HTCondor's views (batch, -nobatch, -hold, -run, -totals),
as ClassAds (-l, -json) or as chosen expressions (-af, -format); and condorx's own -cron,
each deferred or cron job's schedule and next run.

The schedd evaluates the columns for every job in one pass per column (in Rust) and streams
them in chunks, so the printing of a 100,000-job queue starts at once.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import click

from condorx import security
from condorx.attrs import JobStatus
from condorx.cli import args as a
from condorx.cli import q_views as views
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient

TOOL = "condor_q"
OPTIONS = [
    a.Opt("constraint", 5, 1),
    a.Opt("nobatch", 3),
    a.Opt("batch", 3),
    a.Opt("long", 1),
    a.Opt("autoformat", 2, -1, ("af",)),
    a.Opt("format", 3, -1),
    a.Opt("hold", 2),
    a.Opt("run", 2),
    a.Opt("cron", 4),
    a.Opt("totals", 3),
    a.Opt("json", 2),
    a.Opt("allusers", 3),
    a.Opt("name", 2, 1),
    a.Opt("attributes", 4, 1),
    a.Opt("wide", 1),
]


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def main(ctx: click.Context) -> None:
    """Show jobs in the queue (HTCondor's condor_q options)."""
    opts = a.parse(ctx.args, OPTIONS, "condor_q")
    cfg = load("condor_q")
    constraint = _constraint(opts)
    client = ScheddClient(cfg, opts.value("name"))
    if "long" in opts.flags or "json" in opts.flags:
        run_client(_print_ads, client, constraint, "json" in opts.flags, tool=TOOL)
    elif "autoformat" in opts.values:
        run_client(_print_af, client, constraint, opts.values["autoformat"], tool=TOOL)
    elif "format" in opts.values:
        run_client(_print_format, client, constraint, opts.values["format"], tool=TOOL)
    else:
        run_client(_print_view, client, constraint, opts, tool=TOOL)


def _constraint(opts: a.Parsed) -> str | None:
    parts = []
    for c in opts.values.get("constraint", []):
        parts.append(f"({c})")
    ids = a.job_clauses(opts.positional)
    if ids:
        parts.append("(" + " || ".join(ids) + ")")
    elif "allusers" not in opts.flags and not opts.values.get("constraint"):
        parts.append(f'(Owner == "{security.current_user()}")')
    if "hold" in opts.flags:
        parts.append(f"(JobStatus == {JobStatus.HELD})")
    if "run" in opts.flags:
        parts.append(f"(JobStatus == {JobStatus.RUNNING})")
    if "cron" in opts.flags:
        parts.append(views.CRON_CONSTRAINT)
    return " && ".join(parts) or None


async def _print_ads(client: ScheddClient, constraint: str | None, as_json: bool) -> None:
    first = True
    if as_json:
        sys.stdout.write("[\n")
    async for chunk in client.query_ads(constraint):
        for ad in chunk:
            if as_json:
                sys.stdout.write(("" if first else ",\n") + ad.printJson().rstrip())
            else:
                sys.stdout.write(ad.printOld() + "\n")
            first = False
    if as_json:
        sys.stdout.write("\n]\n")


async def _print_af(client: ScheddClient, constraint: str | None, exprs: list[str]) -> None:
    if not exprs:
        fail("condor_q: -af needs at least one attribute or expression")
    async for chunk in client.query_rows(exprs, constraint):
        sys.stdout.write("".join(" ".join(_af(v) for v in row) + "\n" for row in chunk))


async def _print_format(client: ScheddClient, constraint: str | None, words: list[str]) -> None:
    if len(words) % 2:
        fail("condor_q: -format takes pairs of a printf format and an attribute")
    pairs = list(zip(words[0::2], words[1::2], strict=True))
    async for chunk in client.query_rows([e for _, e in pairs], constraint):
        for row in chunk:
            sys.stdout.write("".join(_printf(f, v) for (f, _), v in zip(pairs, row, strict=True)))


def _printf(fmt: str, v: Any) -> str:
    fmt = fmt.replace("\\n", "\n").replace("\\t", "\t")
    try:
        if "%d" in fmt or "%i" in fmt:
            return fmt % int(v)
        if any(c in fmt for c in ("%f", "%g", "%e")):
            return fmt % float(v)
        return fmt % (_af(v),)
    except (TypeError, ValueError):
        return fmt.replace("%d", "undefined").replace("%s", _af(v))


def _af(v: Any) -> str:
    if v is None:
        return "undefined"
    if isinstance(v, bool):
        return "true" if v else "false"
    if hasattr(v, "text"):
        return str(v.text)
    return str(v)


async def _print_view(client: ScheddClient, constraint: str | None, opts: a.Parsed) -> None:

    totals = views.Totals()
    if "hold" in opts.flags:
        view: views.View = views.HoldView()
    elif "run" in opts.flags:
        view = views.RunView()
    elif "cron" in opts.flags:
        view = views.CronView()
    elif "nobatch" in opts.flags:
        view = views.NoBatchView()
    else:
        view = views.BatchView()
    quiet = "totals" in opts.flags
    if not quiet:
        print(f"\n\n-- Schedd: {_schedd_name(client)} @ {time.strftime('%m/%d/%y %H:%M:%S')}")
        print(view.header)
    async for chunk in client.query_rows(view.columns, constraint):
        totals.add(chunk)
        if not quiet:
            out = view.rows(chunk)
            if out:
                sys.stdout.write(out)
    if not quiet:
        sys.stdout.write(view.finish())
        print()
    print(totals.line("query"))
    if "allusers" not in opts.flags and not opts.positional and "constraint" not in opts.values:
        print(totals.line(security.current_user()))


def _schedd_name(client: ScheddClient) -> str:
    return client.cfg.get("SCHEDD_NAME") or client.cfg.get("FULL_HOSTNAME") or os.uname().nodename


if __name__ == "__main__":
    main()
