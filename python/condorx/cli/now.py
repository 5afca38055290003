"""condor_now: run an idle job now, in the place of some of your running jobs, which go
back to the queue (their dynamic slots joined into one for it).

condor_now [-name SCHEDD] [-debug] NOW-JOB VACATE-JOB [VACATE-JOB...]

As HTCondor's (now.cpp): nothing printed on success (it does not wait for the job to
start); `Unable to reassign slot: REASON.` and status 1 when the schedd refuses.
"""

from __future__ import annotations

import re
import sys

import trio

from condorx.cli import args as a
from condorx.cli.common import load
from condorx.client.schedd import ScheddClient
from condorx.transport.protocol.schedd.act import RunNow
from condorx.transport.wire import RemoteError, WireError

TOOL = "condor_now"
OPTIONS = [
    a.Opt("name", 4, 1, help="the schedd of the jobs (its address)", metavar="SCHEDD"),
    a.Opt("pool", 4, 1, help="accepted; condorx finds the schedd here", metavar="HOST"),
    a.Opt("debug", 5, help="accepted (condorx prints no debug log here)"),
]
USAGE = (
    "condor_now [-name <scheduler> [-pool <central-manager]] [-debug]\n"
    "                  <job-to-run-now> <job-to-vacate> [<another-job-to-vacate>+]"
)
_JOB = re.compile(r"^\d+(\.\d+)?$")


def _usage() -> None:
    print(f"Usage: {USAGE}\n   or: condor_now -help", file=sys.stderr)
    sys.exit(1)


# now.cpp: usage() returns 1, on stderr, for -help too.
@a.command(
    TOOL,
    OPTIONS,
    USAGE,
    [("JOB", "cluster or cluster.proc (cluster: its proc 0)")],
    help_exit=1,
    help_to_stderr=True,
)
def main(ctx: a.Context) -> None:
    """Run an idle job now in the place of running ones."""
    opts = a.parsed(ctx)
    jobs = opts.positional
    if len(jobs) < 2 or not all(_JOB.match(j) for j in jobs):
        _usage()
    ids = [j if "." in j else f"{j}.0" for j in jobs]
    client = ScheddClient(load(TOOL), opts.value("name"))

    async def ask() -> None:
        async with client.channel() as ch:
            await ch.request(RunNow(ids[0], ids[1:]).to_wire())

    try:
        trio.run(ask)
    except RemoteError as e:
        print(f"Unable to reassign slot: {e}.", file=sys.stderr)
        sys.exit(1)
    except (OSError, WireError) as e:
        print(f"Unable to locate schedd, aborting. ({e})", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
