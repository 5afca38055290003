"""condor_transfer_data: bring home the output of jobs submitted with condor_submit -spool.

condor_transfer_data [-name SCHEDD] [cluster | cluster.proc | user | -constraint EXPR | -all]...

Each of your completed (or removed) spooled jobs chosen has its output fetched from the
schedd's spool and written where it would have gone (its SUBMIT_Iwd, SUBMIT_Out and
SUBMIT_Err); then it may leave the queue. As HTCondor's (transfer_data.cpp): other users'
jobs are skipped, and no job chosen is no error.
"""

from __future__ import annotations

import sys
import time

import trio

from condorx.classad import ClassAd
from condorx.cli import args as a
from condorx.cli.common import fail, load
from condorx.client.schedd import ScheddClient
from condorx.daemons.schedd.staging import write_outputs
from condorx.transport.security import current_user
from condorx.transport.wire import RemoteError, WireError

TOOL = "condor_transfer_data"
OPTIONS = [
    a.Opt("name", 1, 1, help="the schedd of the jobs (its address)", metavar="SCHEDD"),
    a.Opt("pool", 1, 1, help="accepted; condorx finds the schedd here", metavar="HOST"),
    a.Opt("addr", 2, 1, help="the schedd at this address", metavar="<host:port>"),
    a.Opt("constraint", 1, 1, help="the jobs this expression is true of", metavar="EXPR"),
    a.Opt("all", 2, help="all of your jobs"),
    a.Opt("debug", 1, help="accepted (condorx prints no debug log here)"),
]
USAGE = "condor_transfer_data [options] [cluster | cluster.proc | user | -constraint E | -all]"
_DONE = "(JobStatus == 4 || JobStatus == 3)"
_FIELDS = ["ClusterId", "ProcId", "SUBMIT_Iwd", "SUBMIT_Out", "SUBMIT_Err"]


def chosen(opts: a.Parsed) -> str:
    """The constraint the command line names, as HTCondor's tool ORs its parts."""
    parts = []
    for word in opts.positional:
        cluster, dot, proc = word.partition(".")
        if word[:1].isdigit():
            if not cluster.isdigit() or int(cluster) <= 0:
                fail(f"Invalid cluster # from {word}.")
            if dot and not proc.isdigit():
                fail(f"Invalid proc # from {word}.")
            parts.append(
                f"(ClusterId=={int(cluster)} && ProcId=={int(proc)})"
                if dot
                else f"ClusterId=={int(cluster)}"
            )
        else:
            parts.append(f'Owner == "{word}"')
    if opts.value("constraint"):
        parts.append(str(opts.value("constraint")))
    if "all" in opts.flags:
        parts.append("ClusterId >= 0")
    if not parts:
        fail(f"You did not specify any jobs\nUsage: {USAGE}")
    return " || ".join(f"({p})" for p in parts)


async def fetch(client: ScheddClient, constraint: str) -> list[str]:
    """Fetch and write each chosen job's output; the problems met."""
    me = current_user()
    where = f'({constraint}) && {_DONE} && SpooledInputFiles =!= undefined && Owner == "{me}"'
    rows: list[list[object]] = []
    async for chunk in client.query_rows(_FIELDS, where):
        rows.extend(chunk)
    problems = []
    for cluster, proc, iwd, out, err in rows:
        job = f"{cluster}.{proc}"
        files = await client.retrieve(job)
        # Written as whoever runs this tool, where the job's output would have gone.
        home = ClassAd({"Iwd": str(iwd or "."), "Out": out or "", "Err": err or "", "Owner": me})
        failure = await trio.to_thread.run_sync(write_outputs, home, files)
        if failure is not None:
            problems.append(f"job {job}: {failure.reason}")
            continue
        # Fetched: the job may leave the queue now (its LeaveJobInQueue says so).
        await client.edit({"StageOutFinish": str(int(time.time()))}, [job])
    return problems


# transfer_data.cpp: -h... exits 0, --help 1, on stderr.
@a.command(TOOL, OPTIONS, USAGE, help_exit=(0, 1), help_to_stderr=True)
def main(ctx: a.Context) -> None:
    """Fetch the output of spooled jobs."""
    opts = a.parsed(ctx)
    constraint = chosen(opts)
    client = ScheddClient(load(TOOL), opts.value("addr") or opts.value("name"))
    print("Fetching data files...")
    try:
        problems = trio.run(fetch, client, constraint)
    except (OSError, WireError, RemoteError) as e:
        print(f"\n{e}\nERROR: Failed to spool job files.", file=sys.stderr)
        sys.exit(1)
    if problems:
        print("\n" + "\n".join(problems) + "\nERROR: Failed to spool job files.", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
