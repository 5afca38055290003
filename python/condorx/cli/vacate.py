"""condor_vacate: take the jobs off this machine's slots (or the named ones), as their
owner coming back would: each claim retires, then its job is sent the soft kill signal and
goes back to its queue to run elsewhere. `-fast` skips retirement and vacating: the jobs
are killed at once.

    condor_vacate                 # every slot of the startd on this machine
    condor_vacate slot2@host      # just that slot
    condor_vacate -fast
"""

from __future__ import annotations

from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.startd import vacate

TOOL = "condor_vacate"
OPTIONS = [
    a.Opt("fast", 2, help="hard-kill the jobs at once, without retiring or vacating them"),
]
USAGE = f"{TOOL} [-fast] [slot]..."
ARGUMENTS = [("slot", "vacate only this slot of this machine's startd (slot2@host)")]


@a.command(TOOL, OPTIONS, USAGE, ARGUMENTS, help_to_stderr=True)  # tool.cpp: usage(0)
def main(ctx: a.Context) -> None:
    """Vacate the jobs running on this machine's slots."""
    opts = a.parsed(ctx)
    cfg = load(TOOL)
    fast = "fast" in opts.flags
    slots = run_client(vacate, cfg, list(opts.positional), fast, tool=TOOL)
    if not slots:
        fail(f"{TOOL}: no such slot here: {' '.join(opts.positional)}")
    verb = "Fast-vacated" if fast else "Vacated"
    for name in slots:
        print(f"{verb} {name}")
