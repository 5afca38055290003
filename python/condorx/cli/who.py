"""condor_who: the jobs running on this machine's startd, asked of the startd itself.

condor_who [-long | -af[:qual] EXPR...] [-address ADDR] [-logdir DIR] [-wide]
condor_who -daemons [-logdir DIR]

A table of the busy slots (OWNER, CLIENT, SLOT, JOB, RUNTIME, PID, JOB_DIR), as
HTCondor's condor_who prints it; nothing at all when no job runs (status 0, as HTCondor's).
With -daemons, the daemons of the LOG directory instead (`who_daemons`).
"""

from __future__ import annotations

import os
import sys

from condorx.classad import ClassAd
from condorx.cli import args as a
from condorx.cli.adformat import AutoFormat
from condorx.cli.common import fail, load, run_client
from condorx.cli.timefmt import format_time
from condorx.language.config import Config
from condorx.transport import locate, wire
from condorx.transport.connection import Address, call, user_credentials
from condorx.transport.protocol.startd import QuerySlots, SlotAds

TOOL = "condor_who"
OPTIONS = [
    a.Opt("long", 1, help="every attribute of each busy slot"),
    a.Opt(
        "autoformat",
        5,
        -1,
        ("af",),
        help="these attributes or expressions of each busy slot, space-separated",
        metavar="EXPR...",
    ),
    a.Opt("address", 4, 1, help="the startd at this address, not this machine's", metavar="ADDR"),
    a.Opt("wide", 1, help="do not cut the table to the terminal's width"),
    a.Opt("logdir", 3, 1, help="the LOG directory to find the daemons in", metavar="DIR"),
    a.Opt("daemons", 3, help="each daemon's pid, parent, exit and address, not the jobs"),
]
USAGE = "condor_who [-long | -af EXPR...] [-address ADDR] [-logdir DIR] [-daemons] [-wide]"
COLUMNS = ("OWNER", "CLIENT", "SLOT", "JOB", "  RUNTIME", "PID", "JOB_DIR")


async def busy_slots(cfg: Config, address: str | None, log_dir: str | None) -> list[ClassAd]:
    """The startd's slots that run a job, as it sees them now."""
    if address is None:
        path = locate.startd_address_file(cfg)
        if log_dir is not None:
            path = os.path.join(log_dir, ".startd_address")
        try:
            address = locate.read_address(path)
        except OSError:
            return []  # no startd here: HTCondor's says nothing either
    reply = await call(Address.parse(address), user_credentials(cfg), QuerySlots())
    ads = wire.ads_from_packed(SlotAds.from_wire(reply).ads, "slot ad")
    return [ad for ad in ads if ad.get("JobId") is not None]


def row(ad: ClassAd) -> list[str]:
    name = str(ad.get("Name") or "")
    slot = name.split("@", 1)[0].removeprefix("slot") if "_" in name else str(ad.get("SlotID"))
    pid = ad.get("JobPid")
    return [
        str(ad.get("RemoteOwner") or ""),
        str(ad.get("ClientMachine") or ""),
        slot,
        str(ad.get("JobId") or ""),
        format_time(int(ad.get("TotalJobRunTime") or 0)),
        str(pid) if pid is not None else "",
        _cwd(pid),
    ]


def _cwd(pid: object) -> str:
    if not isinstance(pid, int):
        return ""
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


def table(rows: list[list[str]]) -> str:
    widths = [max([len(h.strip())] + [len(r[i]) for r in rows]) for i, h in enumerate(COLUMNS)]
    heads = [h.strip() for h in COLUMNS]
    lines = [
        " ".join(f"{c:<{w}}" for c, w in zip(cells, widths, strict=True)).rstrip()
        for cells in [heads, *rows]
    ]
    return "\n".join(lines) + "\n"


@a.command(TOOL, OPTIONS, USAGE, help_exit=1, help_to_stderr=True)  # who.cpp: usage(true) exits 1
def main(ctx: a.Context) -> None:
    """Show the jobs running on this machine's startd."""
    opts = a.parsed(ctx)
    if opts.positional:
        fail(f"Error: {opts.positional[0]} is not a valid argument")
    cfg = load(TOOL)
    log_dir = opts.value("logdir")
    if "daemons" in opts.flags:
        _print_daemons(log_dir or locate.log_dir(cfg))
        return
    ads = run_client(busy_slots, cfg, opts.value("address"), log_dir, tool=TOOL)
    if not ads:
        return
    if "long" in opts.flags:
        sys.stdout.write("".join(ad.printOld() + "\n" for ad in ads))
        return
    if "autoformat" in opts.values:
        af = AutoFormat(opts.values["autoformat"], opts.quals.get("autoformat", ""))
        sys.stdout.write("".join(af.render(ads)))
        return
    print()
    sys.stdout.write(table(sorted((row(ad) for ad in ads), key=lambda r: r[2])))
    print()


def _print_daemons(log_dir: str) -> None:
    from condorx.cli import who_daemons

    if not os.path.isdir(log_dir):
        fail(f"Error: {log_dir} is not a directory")
    sys.stdout.write(who_daemons.table(log_dir, who_daemons.scan(log_dir)))


if __name__ == "__main__":
    main()
