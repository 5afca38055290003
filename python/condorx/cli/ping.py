"""condor_ping: authenticate to a daemon and ask whether you may do something there.

condor_ping [-quiet | -table | -verbose] [-type DAEMON] [-name NAME | -address ADDR] TOKEN...

A TOKEN is a permission level (READ, WRITE, DAEMON, ADMINISTRATOR and HTCondor's other
names for them, or ALL) or one of the daemon's commands. The daemon answers after the
handshake, so the answer also says who it takes you to be and how your connection is
protected. Exit 0 when every TOKEN is allowed, 1 otherwise, as HTCondor's (ping.cpp).
"""

from __future__ import annotations

import os
import sys

import trio

from condorx.cli import args as a
from condorx.cli.common import fail, load
from condorx.client import schedd as schedd_client
from condorx.language.config import Config
from condorx.transport import locate
from condorx.transport.connection import Address, Credentials, connect, user_credentials
from condorx.transport.protocol.core import Ping, Pinged
from condorx.transport.wire import RemoteError, WireError

TOOL = "condor_ping"
OPTIONS = [
    a.Opt("quiet", 1, help="print nothing: the exit status says it"),
    a.Opt("table", 2, help="one line a TOKEN, as a table"),
    a.Opt("verbose", 1, help="everything about each TOKEN's connection and answer"),
    a.Opt(
        "type",
        4,
        1,
        ("subsystem",),
        help="the daemon: SCHEDD (default), COLLECTOR, NEGOTIATOR, STARTD or MASTER",
        metavar="DAEMON",
    ),
    a.Opt("name", 1, 1, help="the daemon of this name (a schedd's address)", metavar="NAME"),
    a.Opt("address", 1, 1, help="the daemon at this address", metavar="<host:port>"),
    a.Opt(
        "pool",
        1,
        1,
        help="accepted; condorx finds daemons from this machine's configuration",
        metavar="HOST",
    ),
    a.Opt("debug", 1, help="accepted (condorx prints no debug log here)"),
]
USAGE = (
    "condor_ping [-quiet | -table | -verbose] [-type DAEMON] [-name NAME] [-address ADDR] TOKEN..."
)
ARGUMENTS = [("TOKEN", "ALL, a permission level (READ, WRITE, ...), or a command name")]
ALL = (
    "ALLOW",
    "READ",
    "WRITE",
    "NEGOTIATOR",
    "ADMINISTRATOR",
    "OWNER",
    "CONFIG",
    "DAEMON",
    "ADVERTISE_STARTD",
    "ADVERTISE_SCHEDD",
    "ADVERTISE_MASTER",
)
_CIPHER = "ChaCha20-Poly1305"


def target(cfg: Config, kind: str, name: str | None, address: str | None) -> tuple[Address, str]:
    """Where the daemon is, and how HTCondor's tools name it (`local schedd`, ...)."""
    kind = kind.lower()
    if address:
        return Address.parse(address), f"{kind} at {address}"
    if kind == "schedd":
        found = schedd_client.addresses(cfg, name)
        if found:
            return found[0], f"schedd {name}" if name else "local schedd"
        raise OSError("Can't find address for local schedd")
    files = {
        "collector": locate.collector_address_file,
        "negotiator": locate.negotiator_address_file,
        "startd": locate.startd_address_file,
        "master": locate.master_address_file,
    }
    if kind not in files:
        fail(f"ERROR: unrecognized daemon type: {kind}")
    if kind == "master" and os.path.exists(locate.master_socket(cfg)):
        return Address(unix=locate.master_socket(cfg)), "local master"
    try:
        return Address.parse(locate.read(files[kind](cfg))), f"local {kind}"
    except (OSError, ValueError):
        raise OSError(f"Can't find address for local {kind}") from None


async def ping(address: Address, creds: Credentials, tokens: list[str]) -> list[Pinged | str]:
    """Each token's answer, or why there was none; one connection for them all."""
    ch = await connect(address, Credentials() if address.unix else creds)
    try:
        out: list[Pinged | str] = []
        for token in tokens:
            try:
                out.append(Pinged.from_wire(await ch.request(Ping(token).to_wire())))
            except RemoteError as e:
                out.append(str(e))
        return out
    finally:
        await ch.aclose()


@a.command(TOOL, OPTIONS, USAGE, ARGUMENTS)
def main(ctx: a.Context) -> None:
    """Ask a daemon whether you may do something there."""
    opts = a.parsed(ctx)
    modes = [m for m in ("quiet", "table", "verbose") if m in opts.flags]
    if len(modes) > 1:
        fail("ERROR: only one output mode may be specified.")
    if opts.value("address") and opts.value("name"):
        fail("ERROR: -address cannot be used with -pool or -name.")
    tokens = [t.upper() if t.upper() in (*ALL, "ALL") else t for t in opts.positional]
    if not tokens:
        tokens = ["WRITE"]
    tokens = [t for word in tokens for t in (ALL if word == "ALL" else (word,))]
    cfg = load(TOOL)
    kind = opts.value("type") or "SCHEDD"
    try:
        address, who = target(cfg, kind, opts.value("name"), opts.value("address"))
    except OSError as e:
        fail(f"ERROR: couldn't locate {opts.value('name') or opts.value('address') or kind}! ({e})")
    try:
        answers = trio.run(ping, address, user_credentials(cfg), tokens)
    except (OSError, WireError) as e:
        fail(f"ERROR: failed to make connection to {address}: {e}")
    mode = modes[0] if modes else "default"
    if mode == "table":
        print("         Instruction Authentication Encryption Integrity Decision Identity")
    failed = False
    for token, answer in zip(tokens, answers, strict=True):
        if isinstance(answer, str):
            if "knows no level or command" in answer:
                fail(f'ERROR: Could not understand TOKEN "{token}".')
            answer_ok = False
        else:
            answer_ok = answer.authorized
        failed = failed or not answer_ok
        _show(mode, token, answer, who, address)
    sys.exit(1 if failed else 0)


def _show(mode: str, token: str, answer: Pinged | str, who: str, address: Address) -> None:
    if mode == "quiet":
        return
    if isinstance(answer, str) or (mode == "default" and not answer.authorized):
        if mode == "table":
            print(
                f"{token:>20}           FAIL       FAIL      FAIL     FAIL FAIL"
                "  (use -verbose for more info)"
            )
        elif mode == "verbose":
            print(f"{token} failed!\n{answer if isinstance(answer, str) else 'not authorized'}")
        else:
            print(f"{token} failed!  Use -verbose for more information.")
        return
    enc = _CIPHER if answer.protection == "encrypted" else "no encryption"
    integ = _CIPHER if answer.protection != "clear" else "no integrity"
    auth = {"anonymous": "no authentication"}.get(answer.method, answer.method.upper())
    if mode == "table":
        decision = "    ALLOW " if answer.authorized else "     DENY "
        short_enc = "CHACHA20" if answer.protection == "encrypted" else "none"
        short_int = "CHACHA20" if answer.protection != "clear" else "none"
        print(f"{token:>20}{auth:>15}{short_enc:>11}{short_int:>10}{decision}{answer.user}")
    elif mode == "verbose":
        rows = [
            ("Destination:", f"{who} {address}"),
            ("Instruction:", token),
            ("Command:", f"needs {answer.permission}"),
            ("Encryption:", enc),
            ("Integrity:", integ),
            ("Authenticated using:", auth),
            ("Remote Mapping:", answer.user),
            ("Authorized:", "TRUE" if answer.authorized else "FALSE"),
        ]
        print("\n".join(f"{k:<30}{v}" for k, v in rows) + "\n")
    else:
        print(
            f"{token} command using ({enc}, {integ}, and {auth}) succeeded"
            f" as {answer.user} to {who}."
        )


if __name__ == "__main__":
    main()
