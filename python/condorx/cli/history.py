"""condor_history: jobs that have left the queue, newest first, from the history file."""

from __future__ import annotations

import sys
from collections.abc import Iterator

from condorx.classad import ClassAd, ExprTree
from condorx.cli import adformat
from condorx.cli import args as a
from condorx.cli.common import fail, load
from condorx.cli.timefmt import duration, short_date
from condorx.client.schedd import history_ads
from condorx.language.attrs import JobStatus

OPTIONS = [
    *adformat.JOB_AD_OPTIONS,
    a.Opt("match", 3, 1, ("limit",), help="at most N jobs", metavar="N"),
]
USAGE = "condor_history [options] [cluster | cluster.proc | user]..."
HEADER = " ID     OWNER          SUBMITTED   RUN_TIME     ST COMPLETED   CMD"


@a.command("condor_history", OPTIONS, USAGE)
def main(ctx: a.Context) -> None:
    """Show finished jobs (HTCondor's condor_history options)."""
    opts = a.parsed(ctx)
    cfg = load("condor_history")
    match = opts.value("match")
    limit = int(match) if match and match.isdigit() else None
    try:
        wanted = _filter(opts)
    except ValueError as e:
        fail(f"condor_history: {e}")
    words = opts.values.get("format", [])
    exprs = opts.values.get("autoformat", []) + words[1::2]
    bad = adformat.check_exprs(exprs)
    if bad is not None:
        fail(f"condor_history: {bad!r} is not a valid ClassAd expression")
    ads = _matching(history_ads(cfg), wanted, limit)
    text = opts.value("attributes")
    only = [n for n in text.replace(",", " ").split() if n] if text else None
    out = sys.stdout
    if "json" in opts.flags:
        writer = adformat.JsonWriter(only)
        for ad in ads:
            out.write(writer.ad(ad))
        out.write(writer.footer())
    elif "xml" in opts.flags:
        xml = adformat.XmlWriter(only)
        out.write(xml.header())
        for ad in ads:
            out.write(xml.ad(ad))
        out.write(xml.footer())
    elif "long" in opts.flags:
        for ad in ads:
            out.write(adformat.long_ad(ad, only))
    elif "autoformat" in opts.values or words:
        formats = [adformat.Format(f, e) for f, e in zip(words[0::2], words[1::2], strict=True)]
        af = None
        if "autoformat" in opts.values:
            af = adformat.AutoFormat(opts.values["autoformat"], opts.quals.get("autoformat", ""))
        if af is not None and af.headings:
            out.write("".join(af.render(list(ads))))
            return
        for ad in ads:
            out.write(adformat.render_formats(formats, ad))
            if af is not None:
                out.write(af.row(af.cells(ad)))
    else:
        print(HEADER)
        for ad in ads:
            out.write(_row(ad))


def _matching(
    ads: Iterator[ClassAd], wanted: ExprTree | None, limit: int | None
) -> Iterator[ClassAd]:
    shown = 0
    for ad in ads:
        if limit is not None and shown >= limit:
            return
        if wanted is not None and wanted.eval(ad) is not True:
            continue
        shown += 1
        yield ad


def _filter(opts: a.Parsed) -> ExprTree | None:
    parts = [f"({c})" for c in opts.values.get("constraint", [])]
    ids = a.job_clauses(opts.positional)
    if ids:
        parts.append("(" + " || ".join(ids) + ")")
    return ExprTree(" && ".join(parts)) if parts else None


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
