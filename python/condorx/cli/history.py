"""condor_history: jobs that have left the queue, newest first, from the history file."""

from __future__ import annotations

import sys
from typing import Any

import click

from condorx.attrs import JobStatus
from condorx.classad import ClassAd, ExprTree, Value
from condorx.cli import args as a
from condorx.cli.common import fail, load
from condorx.cli.timefmt import duration, short_date
from condorx.client.schedd import history_ads

OPTIONS = [
    a.Opt("constraint", 5, 1),
    a.Opt("long", 1),
    a.Opt("autoformat", 2, -1, ("af",)),
    a.Opt("match", 3, 1, ("limit",)),
    a.Opt("json", 2),
]
HEADER = " ID     OWNER          SUBMITTED   RUN_TIME     ST COMPLETED   CMD"


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def main(ctx: click.Context) -> None:
    """Show finished jobs (HTCondor's condor_history options)."""
    opts = a.parse(ctx.args, OPTIONS, "condor_history")
    cfg = load("condor_history")
    match = opts.value("match")
    limit = int(match) if match and match.isdigit() else None
    try:
        wanted = _filter(opts)
    except ValueError as e:
        fail(f"condor_history: {e}")
    if "long" not in opts.flags and "autoformat" not in opts.values and "json" not in opts.flags:
        print(HEADER)
    shown = 0
    for ad in history_ads(cfg):
        if limit is not None and shown >= limit:
            break
        if wanted is not None and wanted.eval(ad) is not True:
            continue
        shown += 1
        _show(ad, opts)


def _filter(opts: a.Parsed) -> ExprTree | None:
    parts = [f"({c})" for c in opts.values.get("constraint", [])]
    ids = a.job_clauses(opts.positional)
    if ids:
        parts.append("(" + " || ".join(ids) + ")")
    return ExprTree(" && ".join(parts)) if parts else None


def _show(ad: ClassAd, opts: a.Parsed) -> None:
    if "long" in opts.flags:
        sys.stdout.write(ad.printOld() + "\n")
    elif "json" in opts.flags:
        sys.stdout.write(ad.printJson())
    elif "autoformat" in opts.values:
        sys.stdout.write(
            " ".join(_af(ExprTree(e).eval(ad)) for e in opts.values["autoformat"]) + "\n"
        )
    else:
        sys.stdout.write(_row(ad))


def _af(v: Any) -> str:
    if v is Value.Undefined:
        return "undefined"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _row(ad: ClassAd) -> str:
    def date(name: str) -> str:
        return short_date(ad.get(name), "???")

    run = duration(ad.get("RemoteWallClockTime") or 0)
    try:
        st = JobStatus(ad.get("JobStatus")).letter
    except ValueError:
        st = "?"
    args = ad.get("Args") or ad.get("Arguments")
    cmd = str(ad.get("Cmd") or "") + (f" {args}" if args else "")
    return (
        f"{ad.get('ClusterId'):>4}.{ad.get('ProcId'):<3} {str(ad.get('Owner')):<14}"
        f" {date('QDate'):>11} {run:>12} {st}  {date('CompletionDate'):<11} {cmd}\n"
    )


if __name__ == "__main__":
    main()
