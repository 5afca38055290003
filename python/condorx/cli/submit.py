"""condor_submit: turn a submit description into jobs in the schedd's queue.

condor_submit [-a LINE]... [-queue ARGS] [-name SCHEDD] [-terse] [-dry-run FILE]
              [-batch-name NAME] [NAME=VALUE]... [FILE | -]
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient
from condorx.submit.build import Facts, Jobs, build
from condorx.submit.errors import SubmitError
from condorx.submit.parse import parse

OPTIONS = [
    a.Opt("append", 1, 1),
    a.Opt("queue", 1, 1),
    a.Opt("name", 2, 1),
    a.Opt("terse", 1),
    a.Opt("dry-run", 3, 1),
    a.Opt("batch-name", 2, 1),
    a.Opt("verbose", 1),
]


@click.command(context_settings=a.CONTEXT)
@click.pass_context
def main(ctx: click.Context) -> None:
    """Submit jobs described in FILE (or standard input)."""
    opts = a.parse(ctx.args, OPTIONS, "condor_submit")
    cfg = load("condor_submit")
    files = [w for w in opts.positional if "=" not in w]
    extra = [w for w in opts.positional if "=" in w] + opts.values.get("append", [])
    if opts.value("batch-name"):
        extra.append(f"batch_name = {opts.value('batch-name')}")
    if len(files) > 1:
        fail("condor_submit: give one submit description file")
    source, text = _read(files[0] if files else "-")
    if opts.value("queue"):
        text += f"\nqueue {opts.value('queue')}\n"
    dry_run = opts.value("dry-run")
    client = None if dry_run else ScheddClient(cfg, opts.value("name"))
    try:
        desc = parse(text, source, extra)
        cluster_id = run_client(client.reserve, tool="condor_submit") if client else 1
        jobs = build(desc, cluster_id, Facts.from_config(cfg), cfg)
    except SubmitError as e:
        fail(f"condor_submit: {e}")
    if dry_run or client is None:
        _dry_run(jobs, cluster_id, dry_run or "-")
        return
    if "terse" not in opts.flags:
        print("Submitting job(s)" + "." * min(len(jobs.procs), 60))
    cluster = run_client(client.submit, jobs.cluster, jobs.procs, cluster_id, tool="condor_submit")
    n = len(jobs.procs)
    if "terse" in opts.flags:
        print(f"{cluster}.0 - {cluster}.{n - 1}")
    else:
        print(f"{n} job(s) submitted to cluster {cluster}.")


def _read(name: str) -> tuple[str, str]:
    if name == "-":
        return "<stdin>", sys.stdin.read()
    try:
        return name, Path(name).read_text()
    except OSError as e:
        fail(f"condor_submit: cannot read {name}: {e.strerror}")
    except UnicodeDecodeError:
        fail(f"condor_submit: {name} is not a text file")


def _dry_run(jobs: Jobs, cluster_id: int, dest: str) -> None:
    """Write the ads that would be submitted (old syntax), one per proc."""
    from condorx import wire

    base = wire.ad_from_wire(jobs.cluster, "cluster ad")
    base["ClusterId"] = cluster_id
    chunks = []
    for proc, diff in enumerate(jobs.procs):
        ad = wire.ad_from_wire(diff, f"proc {proc}")
        ad["ProcId"] = proc
        ad.chain(base)
        chunks.append(ad.printOld())
    text = "\n".join(chunks)
    if dest == "-":
        sys.stdout.write(text)
    else:
        Path(dest).write_text(text)


if __name__ == "__main__":
    main()
