"""condor_reschedule: ask the schedd to have the negotiator run a cycle now, so that
jobs just submitted need not wait for the next NEGOTIATOR_INTERVAL.

    condor_reschedule                 # the local schedd
    condor_reschedule -name NAME      # the schedd of this name
"""

from __future__ import annotations

from condorx.cli import args as a
from condorx.cli.common import load, run_client
from condorx.client.schedd import ScheddClient

TOOL = "condor_reschedule"
OPTIONS = [
    a.Opt("name", 1, 1, help="the schedd of this name (default: the local one)", metavar="NAME"),
    a.Opt(
        "pool",
        1,
        1,
        help="accepted; condorx finds schedds from this machine's configuration",
        metavar="HOST",
    ),
    a.Opt("debug", 1, help="accepted (condorx prints no debug log here)"),
]
USAGE = f"{TOOL} [-name NAME]"


@a.command(TOOL, OPTIONS, USAGE, help_to_stderr=True)  # tool.cpp: usage(0), on stderr
def main(ctx: a.Context) -> None:
    """Ask the schedd for a negotiation cycle now."""
    opts = a.parsed(ctx)
    cfg = load(TOOL)
    name = opts.value("name")
    run_client(ScheddClient(cfg, name).reschedule, tool=TOOL)
    # HTCondor's words (condor_tool's "Sent ... command to" and the daemon's idStr).
    print(f'Sent "Reschedule" command to {f"schedd {name}" if name else "local schedd"}')


if __name__ == "__main__":
    main()
