"""The commands every daemon answers on its CEDAR face, as HTCondor's DaemonCore does:
DC_NOP (nothing; it ends a run of updates), and DC_CONFIG_VAL, the daemon's own view of
its configuration (`htcondor2.RemoteParam`, `condor_config_val -name`).

DC_CONFIG_VAL's (and the older CONFIG_VAL's: the value, or "Not defined") answer for a
name is the value (NULL when the name is not defined),
then `NAME = raw value`, where it was set, its default (NULL: none) and a use count;
`?names[:regex]` lists the names defined (matching the regex).
"""

from __future__ import annotations

import re

from condorx.cedar.codec import Writer
from condorx.cedar.commands import Cmd
from condorx.cedar.face import Call, CedarCommand, Serve
from condorx.config import Config
from condorx.protocol.table import Permission


def _config_val(cfg: Config) -> Serve:
    async def serve(call: Call) -> bool:
        name = (await call.payload()).text()
        out = call.writer()
        if call.command == CONFIG_VAL:  # the older form: the value, or "Not defined"
            out.string(cfg.get(name) if cfg.get(name) is not None else "Not defined")
        elif name.startswith("?"):
            _special(cfg, name, out)
        elif cfg.get(name) is None:
            out.string(None)
        else:
            where = cfg.where(name)
            location = (
                f"{where[0]}, line {where[1]}"
                if where and where[1]
                else (where[0] if where else "<Default>")
            )
            out.string(cfg.get(name)).string(f"{name.upper()} = {cfg.raw(name) or ''}")
            out.string(location).string(None).string("1")
        await call.send(out)
        return False

    return serve


def _special(cfg: Config, query: str, out: Writer) -> None:
    command, _, pattern = query.partition(":")
    if command != "?names":
        out.string(f"!error:unsup:1: '{query}' is not supported")
        return
    try:
        wanted = re.compile(pattern or ".*", re.IGNORECASE)
    except re.error as e:
        out.string(f"!error:regex:{e.pos or 0}: {e.msg}")
        return
    names = [n for n in cfg.names() if wanted.search(n)]
    for name in names or [""]:
        out.string(name)


CONFIG_VAL = 457  # the older command: the value alone


async def _nop(call: Call) -> bool:
    return False


# The DC_NOP_<LEVEL> commands (60020 + n): `condor_ping` and `htcondor2.ping` ask about a
# permission level by naming one of these. Each level's condorx permission.
_NOPS = {
    60020: ("READ", Permission.READ),
    60021: ("WRITE", Permission.WRITE),
    60022: ("NEGOTIATOR", Permission.DAEMON),
    60023: ("ADMINISTRATOR", Permission.ADMINISTRATOR),
    60024: ("OWNER", Permission.ADMINISTRATOR),
    60025: ("CONFIG", Permission.ADMINISTRATOR),
    60026: ("DAEMON", Permission.DAEMON),
    60027: ("ADVERTISE_STARTD", Permission.DAEMON),
    60028: ("ADVERTISE_SCHEDD", Permission.DAEMON),
    60029: ("ADVERTISE_MASTER", Permission.DAEMON),
}


def commands(cfg: Config) -> list[CedarCommand]:
    nops = [
        CedarCommand(n, level, _nop, permission=perm, forced=perm is not Permission.READ)
        for n, (level, perm) in _NOPS.items()
    ]
    values = [CedarCommand(n, "READ", _config_val(cfg)) for n in (Cmd.DC_CONFIG_VAL, CONFIG_VAL)]
    return [*values, *nops]
