"""condor_vacate: take the jobs off this machine's slots (or the named ones), as their
owner coming back would: each claim retires, then its job is sent the soft kill signal and
goes back to its queue to run elsewhere. `-fast` skips retirement and vacating: the jobs
are killed at once.

    condor_vacate                 # every slot of the startd on this machine
    condor_vacate slot2@host      # just that slot
    condor_vacate -fast
"""

from __future__ import annotations

from typing import Any

import click

from condorx import locate
from condorx.cli import args as a
from condorx.cli.common import fail, load, run_client
from condorx.client.connection import Address, connect, user_credentials
from condorx.config import Config

TOOL = "condor_vacate"
OPTIONS = [
    a.Opt("fast", 2, help="hard-kill the jobs at once, without retiring or vacating them"),
]
USAGE = f"{TOOL} [-fast] [slot]..."
ARGUMENTS = [("slot", "vacate only this slot of this machine's startd (slot2@host)")]


@a.command(TOOL, OPTIONS, USAGE, ARGUMENTS)
@click.pass_context
def main(ctx: click.Context) -> None:
    """Vacate the jobs running on this machine's slots."""
    opts = a.parsed(ctx)
    cfg = load(TOOL)
    req = {"cmd": "vacate", "slots": list(opts.positional), "fast": "fast" in opts.flags}
    reply = run_client(_startd, cfg, req, tool=TOOL)
    slots = reply.get("slots") or []
    if not slots:
        fail(f"{TOOL}: no such slot here: {' '.join(opts.positional)}")
    verb = "Fast-vacated" if req["fast"] else "Vacated"
    for name in slots:
        click.echo(f"{verb} {name}")


async def _startd(cfg: Config, req: dict[str, Any]) -> dict[str, Any]:
    path = locate.startd_address_file(cfg)
    try:
        address = path.read_text().strip()
    except OSError:
        raise OSError(f"no startd is running here ({path} does not exist)") from None
    ch = await connect(Address.parse(address), user_credentials(cfg))
    try:
        return await ch.request(req)
    finally:
        await ch.aclose()
