"""condor_submit_dag: check a DAG and write the submit file of the job that runs it.

condor_submit_dag [options] DAG_FILE [DAG_FILE...]

The DAG files are read as HTCondor 25's condor_submit_dag reads them: a command it does
not know, or a malformed CONFIG, ENV or SET_JOB_ATTR, is an error naming the file and line,
and nothing is written. What only condor_dagman finds (a line it cannot read, a cycle, a
submit file or script not there yet) is a warning here, as the DAG is read as
condor_dagman will read it; HTCondor's says nothing of these. Then `DAG.condor.sub` is
written as HTCondor's condor_submit_dag writes it, and submitted to the local schedd
(unless -no_submit): its job is condor_dagman, in the scheduler universe, which runs the
DAG.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.schedd import ScheddClient
from condorx.language.dag import files as files_needed
from condorx.language.dag import job_commands
from condorx.language.dag.errors import DagError
from condorx.language.dag.graph import cycle_member
from condorx.language.dag.parse import parse_files
from condorx.language.dag.submit_file import Options, text
from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse as parse_submit

TOOL = "condor_submit_dag"
OPTIONS = [
    a.Opt("no_submit", 3, help="write the submit file, do not submit it"),
    a.Opt("force", 1, aliases=("f",), help="overwrite the files of an earlier run"),
    a.Opt("maxidle", 5, 1, help="at most N idle node jobs", metavar="N"),
    a.Opt("maxjobs", 5, 1, help="at most N node jobs in the queue", metavar="N"),
    a.Opt("maxpre", 5, 1, help="at most N PRE scripts at once", metavar="N"),
    a.Opt("maxpost", 5, 1, help="at most N POST scripts at once", metavar="N"),
    a.Opt("append", 2, 1, help="add COMMAND to the submit file", metavar="COMMAND"),
    a.Opt("insert_sub_file", 3, 1, help="add FILE's commands to the submit file", metavar="FILE"),
    a.Opt("batch-name", 3, 1, aliases=("batch_name",), help="the DAG's batch name"),
    a.Opt("notification", 2, 1, help="e-mail notification for the DAGMan job"),
    a.Opt("usedagdir", 4, help="run each DAG in its file's directory"),
    a.Opt("no_recurse", 4, help="do not write the submit files of sub-DAGs now (default)"),
    a.Opt("do_recurse", 4, help="write the submit files of sub-DAGs now"),
    a.Opt("dorecov", 5, help="run in recovery mode"),
    a.Opt("autorescue", 3, 1, help="run the last rescue DAG (1, the default) or not (0)"),
    a.Opt("dorescuefrom", 5, 1, help="run rescue DAG number N", metavar="N"),
    a.Opt("outfile_dir", 3, 1, help="where the .dagman.out file goes", metavar="DIR"),
    a.Opt("config", 3, 1, help="DAGMan's configuration file", metavar="FILE"),
    a.Opt("dagman", 3, 1, help="the condor_dagman to run", metavar="PATH"),
    a.Opt("suppress_notification", 3, help="no e-mail from the DAG's jobs"),
    a.Opt("dont_suppress_notification", 6, help="e-mail from the DAG's jobs as they say"),
    a.Opt("priority", 2, 1, help="the priority of the DAG's jobs", metavar="N"),
    a.Opt("debug", 2, 1, help="DAGMan's debug level", metavar="N"),
    a.Opt("load_save", 6, 1, help="run from this save point file", metavar="FILE"),
    a.Opt("update_submit", 3, help="rewrite the submit file of an earlier run and go on"),
    a.Opt("import_env", 3, help="the DAGMan job gets this environment"),
]
USAGE = "condor_submit_dag [options] dag_file [dag_file...]"
ARGUMENTS = [("DAG_FILE", "the DAG description (several run as one DAG)")]


@a.command(TOOL, OPTIONS, USAGE, ARGUMENTS)
def main(ctx: a.Context) -> None:
    """Check a DAG and write the submit file of the DAGMan job that runs it."""
    opts = a.parsed(ctx)
    if not opts.positional:
        fail(f"Usage: {USAGE}")
    try:
        options = _options(opts)
        options.take_from(job_commands.read(options.dags, options.use_dag_dir))
        for warning in _warnings(options):
            print(f"WARNING: {warning}", file=sys.stderr)
        files = options.files()
        _clear(options, files)
        rescue = None if options.load_save else _rescue(options)
        if rescue is None and not (options.load_save or options.update_submit):
            _refuse_existing(files)
        Path(files["submit"]).write_text(text(options))
    except DagError as e:
        fail(f"ERROR: {e}")
    _report(files, rescue, "no_submit" in opts.flags)


def _warnings(options: Options) -> list[str]:
    """What condor_dagman will find when it reads the DAG: the line it will refuse, or
    the files not there yet and a cycle (it runs what it can, then stops)."""
    try:
        dag = parse_files(list(options.dags), use_dag_dir=options.use_dag_dir)
    except DagError as e:
        return [f"condor_dagman will not run this DAG: {e}"]
    out = files_needed.missing(dag)
    in_cycle = cycle_member(dag)
    if in_cycle:
        node = dag.nodes[in_cycle]
        out.append(
            f"{node.source}, line {node.line}: node {in_cycle} is in a cycle: condor_dagman"
            " will run the rest of the DAG, then stop (DAG_STATUS 5)"
        )
    return out


def _options(opts: a.Parsed) -> Options:
    def number(name: str, default: int) -> int:
        value = opts.value(name)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError:
            raise DagError(f"-{name} needs a whole number, not {value!r}") from None

    return Options(
        dags=list(opts.positional),
        max_idle=number("maxidle", -1),
        max_jobs=number("maxjobs", -1),
        max_pre=number("maxpre", -1),
        max_post=number("maxpost", -1),
        do_recovery="dorecov" in opts.flags,
        priority=number("priority", 0),
        notification=opts.value("notification") or "",
        suppress_notification="suppress_notification" in opts.flags,
        dagman=opts.value("dagman") or "",
        use_dag_dir="usedagdir" in opts.flags,
        outfile_dir=opts.value("outfile_dir") or "",
        auto_rescue=number("autorescue", 1),
        do_rescue_from=number("dorescuefrom", 0),
        force="force" in opts.flags,
        recurse="do_recurse" in opts.flags,
        batch_name=opts.value("batch-name") or "",
        config=opts.value("config") or "",
        append_file=opts.value("insert_sub_file") or "",
        append_lines=list(opts.values.get("append", [])),
        debug=number("debug", -1) if opts.value("debug") is not None else None,
        load_save=opts.value("load_save") or "",
        update_submit="update_submit" in opts.flags,
        import_env="import_env" in opts.flags,
    )


def _clear(options: Options, files: dict[str, str]) -> None:
    """As HTCondor's: the halt file goes; with -force, so do the files of the last run,
    and its rescue DAGs are renamed `.old` (none will be run)."""
    Path(options.primary + ".halt").unlink(missing_ok=True)
    if not options.force:
        return
    for key in ("submit", "sched_log", "lib_out", "lib_err"):
        Path(files[key]).unlink(missing_ok=True)
    primary = Path(options.primary)
    for found in primary.parent.glob(primary.name + ".rescue[0-9][0-9][0-9]"):
        found.rename(f"{found}.old")


def _refuse_existing(files: dict[str, str]) -> None:
    """A new run (not a rescue) must not overwrite the files of an earlier one."""
    there = [
        files[k] for k in ("submit", "lib_out", "lib_err", "sched_log") if Path(files[k]).exists()
    ]
    if there:
        fail(
            "".join(f'ERROR: "{f}" already exists.\n' for f in there)
            + "\nSome file(s) needed by condor_dagman already exist. Either:\n- Rename them\n"
            '- Use the "-f" option to force them to be overwritten\n'
            '\tor\n- Use the "-update_submit" option to update the submit file and continue.'
        )


def _rescue(options: Options) -> str | None:
    """The rescue DAG the run starts from, if any: the one -dorescuefrom names (which
    must exist), else the last one, unless -AutoRescue 0 or -force."""
    primary = options.primary
    if options.do_rescue_from:
        path = f"{primary}.rescue{options.do_rescue_from:03d}"
        if not os.path.exists(path):
            raise DagError(
                f"-dorescuefrom {options.do_rescue_from} specified, but rescue DAG file"
                f" {path} does not exist!"
            )
        return path
    if options.force or not options.auto_rescue:
        return None
    found = sorted(Path(primary).parent.glob(Path(primary).name + ".rescue[0-9][0-9][0-9]"))
    return str(found[-1]) if found else None


def _report(files: dict[str, str], rescue: str | None, no_submit: bool) -> None:
    line = "-" * 71
    if rescue:
        print(f"Running rescue DAG {int(rescue[-3:])}")
    print(f"\n{line}")
    print(f"File for submitting this DAG to HTCondor           : {files['submit']}")
    print(f"Log of DAGMan debugging messages                   : {files['debug_log']}")
    print(f"Log of HTCondor library output                     : {files['lib_out']}")
    print(f"Log of HTCondor library error messages             : {files['lib_err']}")
    print(f"Log of the life of condor_dagman itself            : {files['sched_log']}")
    print()
    if no_submit:
        print("-no_submit given, not submitting DAG to HTCondor. You can do this with:")
        print(f'"condor_submit {files["submit"]}"')
        print(line)
        return
    cluster = _submit(files["submit"])
    print("Submitting job(s).")
    print(f"1 job(s) submitted to cluster {cluster}.")
    print(line)


def _submit(path: str) -> int:
    """Submit the DAGMan job as condor_submit would submit `path`."""
    cfg = load(TOOL)
    client = ScheddClient(cfg)
    try:
        desc = parse_submit(Path(path).read_text(), path, (), path)
        cluster = run_client(client.reserve, tool=TOOL)
        jobs = build(desc, cluster, Facts.from_config(cfg), cfg)
    except SubmitError as e:
        fail(f"ERROR: {e}")
    return int(run_client(client.submit, jobs.cluster, jobs.procs, cluster, tool=TOOL))


if __name__ == "__main__":
    main()
