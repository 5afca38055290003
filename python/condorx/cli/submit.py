"""condor_submit: turn a submit description into jobs in the schedd's queue.

condor_submit [-append COMMAND]... [-queue ARGS] [-name SCHEDD] [-terse] [-dry-run FILE]
              [-batch-name NAME] [-verbose] [NAME=VALUE]... [FILE | -]
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

from condorx.classad import ClassAd
from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient
from condorx.language.config import Config
from condorx.language.submit.build import Facts, Jobs, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import Description, parse
from condorx.language.submit.series import Series, may_make_factory
from condorx.transport import blocking, wire
from condorx.transport.security import current_user
from condorx.transport.wire import Expr, RemoteError, WireError

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

TOOL = "condor_submit"
OPTIONS = [
    a.Opt(
        "append",
        1,
        1,
        help="add COMMAND to the description, just before its queue (repeatable)",
        metavar="COMMAND",
    ),
    a.Opt(
        "queue",
        1,
        1,
        help="queue jobs with these queue-command arguments (FILE has no queue)",
        metavar="ARGS",
    ),
    a.Opt("name", 2, 1, help="submit to this condor_schedd, not the local one", metavar="SCHEDD"),
    a.Opt("terse", 1, help="terse output: print the job id range only"),
    a.Opt(
        "dry-run",
        3,
        1,
        help="write the job ClassAds to FILE (- : stdout); submit nothing",
        metavar="FILE",
    ),
    a.Opt(
        "batch-name",
        2,
        1,
        help="the batch name condor_q shows (over the file's batch_name)",
        metavar="NAME",
    ),
    a.Opt("verbose", 1, help="print each job's ClassAd as submitted (** Proc C.P:)"),
    a.Opt(
        "spool",
        2,
        help="send the input files with the jobs; their output waits in the schedd's"
        " spool for condor_transfer_data",
    ),
]
USAGE = (
    "condor_submit [-append COMMAND]... [-queue ARGS] [-name SCHEDD] [-terse]\n"
    "              [-dry-run FILE] [-batch-name NAME] [-verbose] [NAME=VALUE]... [FILE | -]"
)
ARGUMENTS = [
    ("NAME=VALUE", "set a submit command or variable, as if at the top of FILE"),
    ("FILE", "the submit description file; - or none: read standard input"),
]


@a.command(TOOL, OPTIONS, USAGE, ARGUMENTS)
def main(ctx: a.Context) -> None:
    """Submit jobs described in FILE (or standard input)."""
    opts = a.parsed(ctx)
    cfg = load("condor_submit")
    files = [w for w in opts.positional if "=" not in w]
    top = [_assignment(w) for w in opts.positional if "=" in w]
    append = list(opts.values.get("append", []))
    batch = opts.value("batch-name")
    if batch:  # as condor_submit: an appended MY. line, so it wins over the file's
        append.append("MY.JobBatchName = " + (batch if batch.startswith('"') else f'"{batch}"'))
    if len(files) > 1:
        fail("condor_submit: give one submit description file")
    source, text = _read(files[0] if files else "-")
    dry_run = opts.value("dry-run")
    client = None if dry_run else ScheddClient(cfg, opts.value("name"))
    terse = "terse" in opts.flags
    stdin = source == "<stdin>"
    # As HTCondor's: a description read from standard input named as `-` implies
    # -verbose (each job's ad, after `** Proc C.P:`), unless -terse. Piped in with no file
    # named (as batchspawner does), it is reported as a file's is.
    dash = files[:1] == ["-"]
    verbose = not terse and ("verbose" in opts.flags or dash)
    try:
        submit_file = None if stdin else source
        desc = parse(text, source, append, submit_file, top, opts.value("queue"))
        cluster_id = run_client(client.reserve, tool="condor_submit") if client else 1
        if client is not None and not verbose and "spool" not in opts.flags:
            digested = _as_digest(desc, cluster_id, cfg)
            if digested is not None:
                _submit_digest(client, digested, cluster_id, terse, dash)
                return
        jobs = build(desc, cluster_id, Facts.from_config(cfg), cfg)
    except SubmitError as e:
        fail(f"ERROR: {e}")
    for warning in jobs.warnings:
        print(warning, file=sys.stderr)
    if dry_run or client is None:
        _dry_run(jobs, cluster_id, dry_run or "-")
        return
    n = len(jobs.procs)
    factory = _factory(jobs)
    if factory is not None and "spool" in opts.flags:
        fail("ERROR: -spool cannot be used with max_materialize or max_idle")
    spooled = _spool(jobs, cluster_id) if "spool" in opts.flags and n else None
    if n:
        cluster_id = _commit(client, jobs.cluster, jobs.procs, cluster_id, spooled, factory)
    if verbose:
        if not dash:
            print("Submitting job(s)", end="")
        for proc, ad in enumerate(_ads(jobs, cluster_id)):
            print(f"\n** Proc {cluster_id}.{proc}:\n{ad.printOld()}", end="")
        if not dash:
            print()
        return
    _report(n, cluster_id, terse, dash)


def _commit(client: ScheddClient, *args: Any) -> int:
    """Queue the jobs; the cluster. A refusal, and a warning of the schedd's submit
    requirements, are told as HTCondor's condor_submit tells them."""
    try:
        reply = blocking.run(client.submitted, *args)
    except RemoteError as e:
        if e.kind == "limit":  # a schedd's limit: HTCondor's words, as its qmgmt says them
            fail(f"\nERROR: {e}")
        fail(f"\nERROR: Failed to commit job submission into the queue.\nERROR: {e}")
    except (WireError, OSError) as e:
        fail(f"{TOOL}: {e}")
    if reply.warnings:
        print(
            "\nWARNING: Committed job submission into the queue with the following"
            " warning(s):\nWARNING: " + "\n".join(str(w) for w in reply.warnings),
            file=sys.stderr,
        )
    return int(reply.cluster)


def _report(n: int, cluster_id: int, terse: bool, dash: bool) -> None:
    """What condor_submit prints of a submission (not -verbose); `dash`: the description
    was read from `-`, which HTCondor's does not announce."""
    if terse:
        if n:
            print(f"{cluster_id}.0 - {cluster_id}.{n - 1}")
        return
    if not dash:
        print("Submitting job(s)" + "." * min(n, 60))
    print(f"{n} job(s) submitted to cluster {cluster_id}.")


def _as_digest(desc: Description, cluster_id: int, cfg: Config) -> tuple[Series, str] | None:
    """A job factory's description as the digest the schedd builds its procs from, as
    HTCondor's condor_submit sends one, when one can be made (`Series.digest`): its
    procs are then not built here (a million of them take seconds)."""
    if len(desc.queues) != 1 or not may_make_factory(desc):
        return None  # (most submissions: their first proc is not built twice)
    series = Series(desc, cluster_id, Facts.from_config(cfg), cfg)
    if not series.is_factory or series.total == 0:
        return None
    digest = series.digest()
    return None if digest is None else (series, digest)


def _submit_digest(
    client: ScheddClient, digested: tuple[Series, str], cluster_id: int, terse: bool, dash: bool
) -> None:
    series, digest = digested
    for warning in series.warnings():
        print(warning, file=sys.stderr)
    n, limit = series.total, series.materialize_limit
    factory = {"limit": n if limit <= 0 else min(limit, n), "digest": digest}
    cluster_id = _commit(client, series.first, [], cluster_id, None, factory)
    _report(n, cluster_id, terse, dash)


# A spooled job stays in the queue once completed, for up to ten days, until its output
# has been fetched (HTCondor's condor_submit -spool sets the same).
_KEEP_FOR_TRANSFER = Expr(
    "JobStatus == 4 && (time() - (CompletionDate ?: time())) < 864000"
    " && (StageOutFinish ?: 0) < EnteredCurrentStatus"
)


def _spool(jobs: Jobs, cluster_id: int) -> list[dict[str, bytes]]:
    """condor_submit -spool: each proc's input files, read here; its ad names them by
    plain name (they will be in its spool directory) and keeps where its output is to
    go (SUBMIT_Iwd, SUBMIT_Out, SUBMIT_Err) for condor_transfer_data."""
    # Here, not at the top: the spool's code brings the starter's, which a plain
    # submission need not load.
    from condorx.daemons.schedd import spool

    out = []
    if "LeaveJobInQueue" not in jobs.cluster or jobs.cluster["LeaveJobInQueue"] is False:
        jobs.cluster["LeaveJobInQueue"] = _KEEP_FOR_TRANSFER
    for proc, ad in enumerate(_ads(jobs, cluster_id)):
        try:
            attrs, files = spool.gather(ad, current_user())  # read as whoever submits
        except spool.SpoolError as e:
            fail(f"ERROR: {e}")
        for name in ("Iwd", "Out", "Err"):
            if isinstance(ad.get(name), str):
                attrs[f"SUBMIT_{name}"] = ad[name]
        jobs.procs[proc].update(attrs)
        out.append(files)
    return out


def _factory(jobs: Jobs) -> dict[str, Any] | None:
    """With max_materialize or max_idle, the jobs are a job factory's: the schedd makes
    them as their turn comes, so many in the queue at once (all, when the limit is 0)."""
    if not jobs.is_factory or not jobs.procs:
        return None
    n = len(jobs.procs)
    limit = jobs.materialize_limit or 0
    return {"limit": n if limit <= 0 else min(limit, n)}


def _assignment(word: str) -> str:
    """A NAME=VALUE argument as a statement (`+Attr=x` is `MY.Attr`), read before the file."""
    name, value = (p.strip() for p in word.split("=", 1))
    if not re.fullmatch(r"[+]?[A-Za-z_][A-Za-z0-9_.]*", name):
        fail(f"condor_submit: invalid attribute name '{name}' for attrib=value assigment")
    return f"{name} = {value}"


def _read(name: str) -> tuple[str, str]:
    if name == "-":
        return "<stdin>", sys.stdin.read()
    try:
        with open(name) as f:
            return name, f.read()
    except OSError as e:
        fail(f"condor_submit: cannot read {name}: {e.strerror}")
    except UnicodeDecodeError:
        fail(f"condor_submit: {name} is not a text file")


def _ads(jobs: Jobs, cluster_id: int) -> Iterator[ClassAd]:
    """Each proc's whole ad, as it goes to the schedd."""
    base = wire.ad_from_wire(jobs.cluster, "cluster ad")
    base["ClusterId"] = cluster_id
    for proc, diff in enumerate(jobs.procs):
        ad = wire.ad_from_wire(diff, f"proc {proc}")
        ad["ProcId"] = proc
        ad.chain(base)
        yield ad


def _dry_run(jobs: Jobs, cluster_id: int, dest: str) -> None:
    """Write the ads that would be submitted (old syntax), one per proc."""
    text = "\n".join(ad.printOld() for ad in _ads(jobs, cluster_id))
    if dest == "-":
        sys.stdout.write(text)
    else:
        with open(dest, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
