"""condor_drain: have a machine's startd take no new jobs and let its running ones go.

condor_drain [-graceful | -quick | -fast] [-reason TEXT] [-resume-on-completion |
             -exit-on-completion | -restart-on-completion | -reconfig-on-completion]
             [-check EXPR] [-start EXPR] [-verbose] MACHINE
condor_drain -cancel [-request-id ID] MACHINE

As HTCondor's (drain.cpp): exit 0 when the startd took the request, 1 when it refused it or
could not be found, 2 for a command line it cannot read.
"""

from __future__ import annotations

import socket
import sys

import trio

from condorx.cli import args as a
from condorx.cli.common import load
from condorx.client.collector import CollectorClient
from condorx.language.config import Config
from condorx.transport import locate
from condorx.transport.connection import Address, call, user_credentials
from condorx.transport.protocol.message import Message
from condorx.transport.protocol.startd import CancelDrain, DrainJobs, DrainStarted
from condorx.transport.wire import RemoteError, WireError

TOOL = "condor_drain"
OPTIONS = [
    a.Opt("graceful", 1, help="let each job retire (MaxJobRetirementTime), then vacate it"),
    a.Opt("quick", 1, help="vacate the jobs now (their soft kill, MaxVacateTime)"),
    a.Opt("fast", 1, help="kill the jobs now"),
    a.Opt("reason", 3, 1, help="why, as the slots' DrainReason says", metavar="TEXT"),
    a.Opt("resume-on-completion", 1, help="once drained, take jobs again"),
    a.Opt("exit-on-completion", 2, help="once drained, the startd exits (not restarted)"),
    a.Opt("restart-on-completion", 4, help="once drained, the startd restarts"),
    a.Opt("reconfig-on-completion", 3, help="once drained, the startd reads its config anew"),
    a.Opt("start", 5, 1, help="the slots' START while draining (graceful)", metavar="EXPR"),
    a.Opt("check", 2, 1, help="drain only if this is true of every slot", metavar="EXPR"),
    a.Opt("cancel", 1, help="stop draining: the slots take jobs again"),
    a.Opt("request-id", 3, 1, help="with -cancel: only this drain request", metavar="ID"),
    a.Opt("verbose", 4, help="also print the drain request's id"),
    a.Opt("pool", 1, 1, help="accepted; condorx finds the startd in this pool", metavar="HOST"),
    a.Opt("debug", 3, help="accepted (condorx prints no debug log here)"),
]
USAGE = "condor_drain [OPTIONS] MACHINE"
# Each -*-on-completion option and what the startd is asked to do once drained.
_ENDS = {
    "resume-on-completion": "resume",
    "exit-on-completion": "exit",
    "restart-on-completion": "restart",
    "reconfig-on-completion": "reconfig",
}


def _error(text: str) -> None:
    print(f"ERROR: {text}", file=sys.stderr)
    sys.exit(2)


async def locate_startd(cfg: Config, machine: str) -> tuple[Address, str]:
    """The startd of `machine` (a host, or a slot or startd name with @): this machine's
    from its address file, another's from the collector."""
    here = {"localhost", socket.gethostname(), socket.getfqdn(), locate.advertised_host("")}
    if machine in here:
        try:
            return Address.parse(locate.read(locate.startd_address_file(cfg))), machine
        except (OSError, ValueError):
            pass
    attr = "Name" if "@" in machine else "Machine"
    ads = await CollectorClient(cfg).query_ads("startd", f'{attr} == "{machine}"')
    for ad in ads:
        if isinstance(ad.get("MyAddress"), str):
            return Address.parse(str(ad["MyAddress"])), str(ad.get("Machine") or machine)
    raise OSError(f"Can't find address for startd {machine}")


# drain.cpp: usage() exits 1, on stderr, for -help too.
@a.command(
    TOOL,
    OPTIONS,
    USAGE,
    [("MACHINE", "the machine (or startd) to drain")],
    usage_exit=2,
    help_exit=1,
    help_to_stderr=True,
)
def main(ctx: a.Context) -> None:
    """Drain a machine's startd of its jobs."""
    opts = a.parsed(ctx)
    if len(opts.positional) != 1:
        _error("must specify one target machine")
    speeds = [s for s in ("graceful", "quick", "fast") if s in opts.flags]
    ends = [e for e in _ENDS if e in opts.flags]
    if len(speeds) > 1 or len(ends) > 1:
        _error(f"'-{(speeds + ends)[1]}' conflicts with '-{(speeds + ends)[0]}'")
    cancel = "cancel" in opts.flags
    if opts.value("request-id") and not cancel:
        _error("-request-id may only be used with -cancel")
    if cancel and opts.value("check"):
        _error("-check may not be used with -cancel")
    if cancel and ends:
        _error("cannot use an -on-completion option with -cancel")
    if cancel and opts.value("reason"):
        _error("cannot use -reason with -cancel")
    cfg = load(TOOL)
    machine = opts.positional[0]
    try:
        address, name = trio.run(locate_startd, cfg, machine)
    except (OSError, WireError, RemoteError) as e:
        print(f"ERROR: {e}", file=sys.stderr)
        sys.exit(1)
    request: Message
    if cancel:
        request = CancelDrain(opts.value("request-id"), machine=name)
        command = "CANCEL_DRAIN_JOBS"
    else:
        request = DrainJobs(
            (speeds or ["graceful"])[0],
            _ENDS[ends[0]] if ends else "nothing",
            opts.value("reason") or "",
            opts.value("check"),
            machine=name,
            start=opts.value("start"),
        )
        command = "DRAIN_JOBS"
    try:
        reply = trio.run(call, address, user_credentials(cfg), request)
    except RemoteError as e:
        print(
            f"Attempt to send {command} to startd {address} failed\n"
            f"Received failure from {name} in response to {command} request: {e}",
            file=sys.stderr,
        )
        sys.exit(1)
    except (OSError, WireError) as e:
        print(
            f"Attempt to send {command} to startd {address} failed\n"
            f"Failed to start {command} command to {name}: {e}",
            file=sys.stderr,
        )
        sys.exit(1)
    if cancel:
        print(f"Sent request to cancel draining on {name}")
        return
    print(
        f"Sent request to drain the startd {address} with {name}. This only affects the"
        " single startd; any other startds running on the same host will not be drained."
    )
    if "verbose" in opts.flags:
        print(f"\tRequest id: {DrainStarted.from_wire(reply).request_id}")


if __name__ == "__main__":
    main()
