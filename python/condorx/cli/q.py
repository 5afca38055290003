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
from collections.abc import AsyncIterator

from condorx.classad import ClassAd, ExprTree, Value
from condorx.cli import adformat
from condorx.cli import args as a
from condorx.cli import q_views as views
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient
from condorx.language.attrs import JobStatus
from condorx.transport import blocking, security

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

TOOL = "condor_q"
OPTIONS = [
    *adformat.JOB_AD_OPTIONS,
    a.Opt("nobatch", 3, help="one line per job"),
    a.Opt("batch", 3, help="one line per batch of jobs (the default)"),
    a.Opt("dag", 2, help="each DAG's node jobs under its DAGMan job, by node name"),
    a.Opt("hold", 2, help="held jobs, with why"),
    a.Opt("run", 2, help="running jobs, with where"),
    a.Opt("cron", 4, help="deferred and cron jobs: schedule and next run (condorx's own)"),
    a.Opt("totals", 3, help="only the totals line"),
    a.Opt("autocluster", 2, help="the schedd's autoclusters of idle jobs, one line each"),
    a.Opt("group-by", 2, help="the jobs grouped by what -af or -format reads, one ad each"),
    a.Opt("allusers", 3, help="every user's jobs, not only yours"),
    a.Opt("name", 2, 1, help="the schedd to ask", metavar="NAME"),
    a.Opt("wide", 1, help="do not truncate"),
    a.Opt("limit", 3, 1, help="at most N jobs", metavar="N"),
    a.Opt("userlog", 2, 1, help="jobs as this job event log tells of them", metavar="FILE"),
    a.Opt(
        "better-analyze",
        3,
        0,
        ("better",),
        help="why jobs do (not) match the pool's slots, clause by clause",
    ),
    a.Opt("analyze", 3, help="as -better-analyze, after checking the job can run at all"),
    a.Opt("mconstraint", 3, 1, help="analyze only against these slots", metavar="EXPR"),
]
USAGE = "condor_q [options] [cluster | cluster.proc | user]..."


@a.command("condor_q", OPTIONS, USAGE)
def main(ctx: a.Context) -> None:
    """Show jobs in the queue (HTCondor's condor_q options)."""
    opts = a.parsed(ctx)
    cfg = load("condor_q")
    constraint = _constraint(opts)
    limit = _limit(opts)
    only = _attributes(opts)
    _check_outputs(opts)
    log = opts.value("userlog")
    if log is not None:
        ads = _userlog_ads(log, constraint, limit)
        if _ads_output(opts):
            _print_ads(_aiter(ads), opts, only)
        else:
            _print_userlog_view(ads, opts)
        return
    client = ScheddClient(cfg, opts.value("name"))
    if {"autocluster", "group-by"} & opts.flags:
        run_client(_print_aggregates, client, constraint, limit, opts, only, tool=TOOL)
    elif "better-analyze" in opts.flags or "analyze" in opts.flags:
        from condorx.cli.analyze_view import analyze  # (its own imports are not small)

        run_client(analyze, client, constraint, opts, tool=TOOL)
    elif _ads_output(opts):
        run_client(_print_schedd_ads, client, constraint, limit, opts, only, tool=TOOL)
    elif "totals" in opts.flags and limit is None:
        run_client(_print_totals, client, constraint, opts, tool=TOOL)
    else:
        run_client(_print_view, client, constraint, opts, limit, tool=TOOL)


def _ads_output(opts: a.Parsed) -> bool:
    """Whether the output is made from whole ads (not a table of the schedd's columns)."""
    return bool(
        {"long", "json", "xml"} & opts.flags
        or "autoformat" in opts.values
        or "format" in opts.values
    )


def _limit(opts: a.Parsed) -> int | None:
    text = opts.value("limit")
    if text is None:
        return None
    if not text.isdigit():
        fail(f"condor_q: -limit needs a number, not {text!r}")
    return int(text)


def _attributes(opts: a.Parsed) -> list[str] | None:
    text = opts.value("attributes")
    if text is None:
        return None
    return [n for n in text.replace(",", " ").split() if n]


def _check_outputs(opts: a.Parsed) -> None:
    exprs = _printed_exprs(opts)
    if "autoformat" in opts.values and not opts.values["autoformat"]:
        fail("condor_q: -af needs at least one attribute or expression")
    bad = adformat.check_exprs(exprs)
    if bad is not None:
        fail(f"condor_q: {bad!r} is not a valid ClassAd expression")


def _constraint(opts: a.Parsed) -> str | None:
    parts = []
    for c in opts.values.get("constraint", []):
        parts.append(f"({c})")
    ids = a.job_clauses(opts.positional)
    if ids:
        parts.append("(" + " || ".join(ids) + ")")
    elif (
        "allusers" not in opts.flags
        and not opts.values.get("constraint")
        and "userlog" not in opts.values
        and not {"autocluster", "group-by"} & opts.flags  # groups have no Owner
    ):
        parts.append(f'(Owner == "{security.current_user()}")')
    if "hold" in opts.flags:
        parts.append(f"(JobStatus == {JobStatus.HELD})")
    if "run" in opts.flags:
        parts.append(f"(JobStatus == {JobStatus.RUNNING})")
    if "cron" in opts.flags:
        parts.append(views.CRON_CONSTRAINT)
    return " && ".join(parts) or None


async def _aiter(ads: list[Any]) -> AsyncIterator[list[Any]]:
    yield ads


def _userlog_ads(path: str, constraint: str | None, limit: int | None) -> list[ClassAd]:
    from pathlib import Path

    from condorx.cli.userlog_jobs import read_jobs
    from condorx.language.eventlog import EventLogError

    try:
        ads = read_jobs(Path(path))
    except OSError as e:
        fail(f"condor_q: cannot read the user log {path}: {e.strerror}")
    except EventLogError as e:
        fail(f"condor_q: {e}")
    if constraint:
        wanted = ExprTree(constraint)
        ads = [ad for ad in ads if wanted.eval(ad) is True]
    return ads if limit is None else ads[:limit]


async def _print_schedd_ads(
    client: ScheddClient,
    constraint: str | None,
    limit: int | None,
    opts: a.Parsed,
    only: list[str] | None,
) -> None:
    projection = _projection(opts)
    chunks = client.query_ads(constraint, limit=limit, projection=projection)
    await _print_ads_async(chunks, opts, only)


def _printed_exprs(opts: a.Parsed) -> list[str]:
    """The expressions -af and -format print."""
    return [*opts.values.get("autoformat", []), *opts.values.get("format", [])[1::2]]


async def _print_aggregates(
    client: ScheddClient,
    constraint: str | None,
    limit: int | None,
    opts: a.Parsed,
    only: list[str] | None,
) -> None:
    """-autocluster and -group-by (grouped by what -af and -format read, as HTCondor's
    condor_q asks): the groups' ads, as any ads or in the AUTOCLUSTER table."""
    from condorx.cli import q_aggregates

    by = None
    if "autocluster" not in opts.flags:
        by = adformat.attributes_read(_printed_exprs(opts))
    chunks = client.aggregate(by, constraint, limit)
    if _ads_output(opts):
        await _print_ads_async(chunks, opts, only)
    else:
        await q_aggregates.print_table(f"Schedd: {_schedd_name(client)}", chunks)


def _projection(opts: a.Parsed) -> list[str] | None:
    """What -af and -format read, for the schedd to send only those attributes (and
    those they read in turn); None (whole ads) for the views that print whole ads."""
    if {"json", "xml", "long"} & set(opts.flags):
        return None
    exprs = _printed_exprs(opts)
    if not exprs:
        return None
    return ["ClusterId", "ProcId", *adformat.attributes_read(exprs)]


def _print_ads(chunks: AsyncIterator[list[ClassAd]], opts: a.Parsed, only: Any) -> None:
    blocking.run(_print_ads_async, chunks, opts, only)


async def _print_ads_async(
    chunks: AsyncIterator[list[ClassAd]], opts: a.Parsed, only: list[str] | None
) -> None:
    """-long, -json, -xml, -af and -format, as HTCondor prints them (cli.adformat)."""
    out = sys.stdout
    if "json" in opts.flags:
        writer = adformat.JsonWriter(only)
        async for chunk in chunks:
            out.write("".join(writer.ad(ad) for ad in chunk))
        out.write(writer.footer())
    elif "xml" in opts.flags:
        xml = adformat.XmlWriter(only)
        out.write(xml.header())
        async for chunk in chunks:
            out.write("".join(xml.ad(ad) for ad in chunk))
        out.write(xml.footer())
    elif "long" in opts.flags:
        async for chunk in chunks:
            out.write("".join(adformat.long_ad(ad, only) for ad in chunk))
    else:
        words = opts.values.get("format", [])
        formats = [adformat.Format(f, e) for f, e in zip(words[0::2], words[1::2], strict=True)]
        af = None
        if "autoformat" in opts.values:
            af = adformat.AutoFormat(opts.values["autoformat"], opts.quals.get("autoformat", ""))
        if af is not None and af.headings:  # the widths need every row first
            ads = [ad async for chunk in chunks for ad in chunk]
            out.write("".join(af.render(ads)))
            return
        async for chunk in chunks:
            rows = af.cells_of(chunk) if af is not None else []
            text = []
            for i, ad in enumerate(chunk):
                text.append(adformat.render_formats(formats, ad))
                if af is not None:
                    text.append(af.row(rows[i]))
            out.write("".join(text))
    out.flush()


async def _print_view(
    client: ScheddClient, constraint: str | None, opts: a.Parsed, limit: int | None = None
) -> None:
    title = f"Schedd: {_schedd_name(client)}"
    view = _view(opts)
    await _render_view(title, view, client.query_rows(view.columns, constraint, limit), opts)


def _view(opts: a.Parsed) -> views.View:
    if "hold" in opts.flags:
        return views.HoldView()
    if "run" in opts.flags:
        return views.RunView()
    if "cron" in opts.flags:
        return views.CronView()
    if "dag" in opts.flags and "batch" not in opts.flags:
        return views.DagView()
    if "nobatch" in opts.flags:
        return views.NoBatchView()
    return views.BatchView()


def _print_userlog_view(ads: list[ClassAd], opts: a.Parsed) -> None:
    view = _view(opts)
    trees = [ExprTree(c) for c in view.columns]
    rows = [[_plain(t.eval(ad)) for t in trees] for ad in ads]
    title = f"Userlog: {opts.value('userlog')}"
    blocking.run(_render_view, title, view, _aiter(rows), opts)


def _plain(v: Any) -> Any:
    return None if v is Value.Undefined or v is Value.Error else v


async def _print_totals(client: ScheddClient, constraint: str | None, opts: a.Parsed) -> None:
    """-totals: the counts, made by the schedd (no job's row is sent)."""
    totals = views.Totals()
    totals.counts = await client.totals(constraint)
    _print_totals_lines(totals, opts)


async def _render_view(
    title: str, view: views.View, chunks: AsyncIterator[list[Any]], opts: a.Parsed
) -> None:
    totals = views.Totals()
    quiet = "totals" in opts.flags
    if not quiet:
        print(f"\n\n-- {title} @ {time.strftime('%m/%d/%y %H:%M:%S')}")
        print(view.header)
    async for chunk in chunks:
        totals.add(chunk)
        if not quiet:
            out = view.rows(chunk)
            if out:
                sys.stdout.write(out)
    if not quiet:
        sys.stdout.write(view.finish())
        print()
    _print_totals_lines(totals, opts)


def _print_totals_lines(totals: views.Totals, opts: a.Parsed) -> None:
    print(totals.line("query"))
    if (
        "allusers" not in opts.flags
        and not opts.positional
        and "constraint" not in opts.values
        and "userlog" not in opts.values
    ):
        print(totals.line(security.current_user()))


def _schedd_name(client: ScheddClient) -> str:
    return client.cfg.get("SCHEDD_NAME") or client.cfg.get("FULL_HOSTNAME") or os.uname().nodename


if __name__ == "__main__":
    main()
