"""condor_dagman: run a DAG. The schedd starts it as the scheduler-universe job that
condor_submit_dag submits (`DAG.condor.sub`), with the arguments written there; it may
also be run by hand (`condor_dagman -Dag FILE`), outside any job.

Its command line is the one condor_submit_dag writes into `DAG.condor.sub` (`-f -l .
-Lockfile L -Dag D -AutoRescue 1 ...`): single-dash options, matched without regard to
case.

Its exit code is the DAG's: 0 when every node succeeded, 1 when some failed (a rescue DAG
is written), 2 when it was removed, or a node's ABORT-DAG-ON return value; 4 when it
failed itself (it is run again, and recovers).
"""

from __future__ import annotations

import os
import sys
import traceback

import trio

from condorx.cli import args as a
from condorx.cli.common import load
from condorx.dagman import options
from condorx.dagman.debug_log import DebugLog
from condorx.dagman.errors import DagmanError
from condorx.dagman.run import Dagman
from condorx.language.dag.errors import DagError
from condorx.version import version_string

OPTIONS = [
    a.Opt("dag", 3, 1, help="a DAG file to run (repeatable: the DAGs run as one)", metavar="FILE"),
    a.Opt("lockfile", 5, 1, help="the lock file (default: DAG.lock)", metavar="FILE"),
    a.Opt("maxidle", 5, 1, help="at most N idle node job procs", metavar="N"),
    a.Opt("maxjobs", 5, 1, help="at most N node jobs in the queue", metavar="N"),
    a.Opt("maxpre", 5, 1, help="at most N PRE scripts at once", metavar="N"),
    a.Opt("maxpost", 5, 1, help="at most N POST scripts at once", metavar="N"),
    a.Opt("priority", 3, 1, help="added to each node job's priority", metavar="N"),
    a.Opt("dorecov", 5, help="recover from the nodes log, as after a crash"),
    a.Opt("autorescue", 5, 1, help="run the last rescue DAG (1, the default) or not (0)"),
    a.Opt("dorescuefrom", 5, 1, help="run rescue DAG number N", metavar="N"),
    a.Opt("force", 5, help="ignore rescue DAGs"),
    a.Opt("load_save", 6, 1, help="start from this save point file", metavar="FILE"),
    a.Opt("suppress_notification", 5, help="no e-mail from the node jobs"),
    a.Opt("dont_suppress_notification", 6, help="e-mail from node jobs as they say"),
    a.Opt("usedagdir", 5, help="each DAG's paths are relative to its own directory"),
    a.Opt("outfile_dir", 5, 1, help="where DAG.dagman.out goes", metavar="DIR"),
    a.Opt("batch-name", 5, 1, help="the node jobs' batch name", metavar="NAME"),
    a.Opt("debug", 3, 1, help="how much DAG.dagman.out says (HTCondor's levels)", metavar="N"),
    a.Opt("f", 1, help="run in the foreground (always so here)"),
    a.Opt("l", 1, 1, help="the log directory (ignored: files go beside the DAG)", metavar="DIR"),
    a.Opt("p", 1, 1, help="the command port (ignored)", metavar="PORT"),
    a.Opt("csdversion", 3, 1, help="condor_submit_dag's version (ignored)", metavar="TEXT"),
    a.Opt("dagman", 6, 1, help="this program's path (for sub-DAGs)", metavar="PATH"),
    a.Opt("notification", 5, 1, help="e-mail notification (of the DAGMan job; ignored)"),
    a.Opt("config", 3, 1, help="a DAGMan configuration file", metavar="FILE"),
    a.Opt("do_recurse", 4, help="sub-DAG files were written at submission (ignored)"),
    a.Opt("update_submit", 3, help="the submit file was rewritten (ignored)"),
    a.Opt("import_env", 3, help="the environment was imported at submission (ignored)"),
    a.Opt("include_env", 9, 1, help="ENV GET: taken into the job at submission (ignored)"),
    a.Opt("insert_env", 8, 1, help="ENV SET: set in the job at submission (ignored)"),
    a.Opt("no_recurse", 4, help="sub-DAG files are written when they run (ignored)"),
]
_INTS = ("maxidle", "maxjobs", "maxpre", "maxpost", "priority", "dorescuefrom", "debug")


def parse_words(argv: list[str]) -> options.Options:
    """condor_dagman's words as an Options; options.OptionError when they cannot run."""
    try:
        return from_parsed(a.parse(argv, OPTIONS, "condor_dagman"))
    except a.UsageError as e:
        raise options.OptionError(e.message) from None


def from_parsed(p: a.Parsed) -> options.Options:
    if p.positional:
        raise options.OptionError(f"unexpected {p.positional[0]!r} (a DAG is given with -Dag FILE)")
    numbers: dict[str, int | None] = {}
    for name in _INTS:
        value = p.value(name)
        try:
            numbers[name] = int(value) if value is not None else None
        except ValueError:
            raise options.OptionError(f"-{name} needs a whole number, not {value!r}") from None
    opts = options.Options(
        dags=list(p.values.get("dag", [])),
        lockfile=p.value("lockfile") or "",
        max_idle=numbers["maxidle"],
        max_jobs=numbers["maxjobs"],
        max_pre=numbers["maxpre"],
        max_post=numbers["maxpost"],
        do_recovery="dorecov" in p.flags,
        priority=numbers["priority"] or 0,
        suppress_notification="suppress_notification" in p.flags,
        use_dag_dir="usedagdir" in p.flags,
        outfile_dir=p.value("outfile_dir") or "",
        auto_rescue=(p.value("autorescue") or "1").strip() not in ("0", "false", "False"),
        do_rescue_from=numbers["dorescuefrom"] or 0,
        force="force" in p.flags,
        batch_name=p.value("batch-name") or "",
        load_save=p.value("load_save") or "",
        debug=numbers["debug"] if numbers["debug"] is not None else 3,
    )
    if not opts.dags:
        raise options.OptionError("no DAG file given (-Dag FILE)")
    if not opts.lockfile:
        opts.lockfile = opts.primary + ".lock"
    return opts


USAGE = "condor_dagman -Dag FILE [-Lockfile FILE] [-MaxJobs N] [-MaxIdle N] ... [options]"


@a.command("condor_dagman", OPTIONS, USAGE, help_exit=1)  # dagman_main.cpp: Usage() exits 1
def main(ctx: a.Context) -> None:
    """Run a DAG: submit its nodes' jobs to the local schedd as their parents finish."""
    try:
        opts = from_parsed(a.parsed(ctx))
    except options.OptionError as e:
        print(f"condor_dagman: {e}", file=sys.stderr)
        sys.exit(1)
    cfg = load("condor_dagman", "DAGMAN")
    out = DebugLog(options.out_file(opts))
    job = _job_id(os.environ.get("CONDOR_ID", ""))
    out("******************************************************")
    out(f"** condor_scheduniv_exec.{job[0]}.{job[1]} (CONDOR_DAGMAN) STARTING UP")
    out(f"** {sys.argv[0]}")
    out(f"** {version_string()}")
    out(f"** PID = {os.getpid()}")
    out("******************************************************")
    out(f"argv: {' '.join(sys.argv)}")
    try:
        code = trio.run(Dagman(opts, cfg, out, job).run)
    except (DagError, DagmanError) as e:
        out(f"ERROR: {e}")
        if isinstance(e, DagError):  # as HTCondor's DAGMan ends a DAG it cannot read
            out(f"Failed to parse {opts.primary}")
        out(f"**** condor_dagman (condor_DAGMAN) pid {os.getpid()} EXITING WITH STATUS 1")
        print(f"condor_dagman: {e}", file=sys.stderr)
        code = 1
    except Exception:
        # As HTCondor's EXCEPT: exit 4, which the DAGMan job's on_exit_remove does not
        # accept, so the schedd runs it again, in recovery mode.
        out(f"ERROR: condor_dagman failed:\n{traceback.format_exc()}")
        out(f"**** condor_dagman (condor_DAGMAN) pid {os.getpid()} EXITING WITH STATUS 4")
        code = 4
    out.close()
    sys.exit(code)


def _job_id(text: str) -> tuple[int, int]:
    """CONDOR_ID ("cluster.proc"), which the schedd gives a scheduler-universe job."""
    cluster, _, proc = text.partition(".")
    try:
        return int(cluster), int(proc or 0)
    except ValueError:
        return 0, 0


if __name__ == "__main__":
    main()
