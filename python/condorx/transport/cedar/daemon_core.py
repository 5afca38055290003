"""The commands every daemon answers on its CEDAR face, as HTCondor's DaemonCore does:
DC_NOP (nothing; it ends a run of updates), DC_CONFIG_VAL, the daemon's own view of its
configuration (`htcondor2.RemoteParam`, `condor_config_val -name`), and the query of its
own ads (`Collector.directQuery`).

DC_CONFIG_VAL's (and the older CONFIG_VAL's: the value, or "Not defined") answer for a
name is the value (NULL when the name is not defined),
then `NAME = raw value`, where it was set, its default (NULL: none) and a use count;
`?names[:regex]` lists the names defined (matching the regex).
"""

from __future__ import annotations

import re

from condorx.classad import ExprTree
from condorx.language.config import Config
from condorx.transport import wire
from condorx.transport.cedar.codec import Writer, put_ads
from condorx.transport.cedar.commands import QUERY_TYPES, Cmd
from condorx.transport.cedar.face import Call, CedarCommand, Serve
from condorx.transport.cedar.query_ad import constraint_of, projection_of


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
    60020: "READ",
    60021: "WRITE",
    60022: "NEGOTIATOR",
    60023: "ADMINISTRATOR",
    60024: "ADMINISTRATOR",  # OWNER: folded into ADMINISTRATOR (HTCondor 9.9)
    60025: "CONFIG",
    60026: "DAEMON",
    60027: "ADVERTISE_STARTD",
    60028: "ADVERTISE_SCHEDD",
    60029: "ADVERTISE_MASTER",
}

# The queries a daemon answers about itself (`Collector.directQuery` sends the daemon
# the QUERY_<TYPE>_ADS it would send the collector), by daemon.
_OWN_QUERIES = {
    "schedd": (Cmd.QUERY_SCHEDD_ADS, Cmd.QUERY_SUBMITTOR_ADS),
    "startd": (Cmd.QUERY_STARTD_ADS,),
    "master": (Cmd.QUERY_MASTER_ADS,),
    "negotiator": (Cmd.QUERY_NEGOTIATOR_ADS,),
}


def own_queries(daemon: str) -> list[CedarCommand]:
    """The QUERY_* commands `daemon` answers with its own ads (what it advertises)."""
    return [CedarCommand(n, "READ", _own_query) for n in _OWN_QUERIES.get(daemon, ())]


async def _own_query(call: Call) -> bool:
    query = (await call.payload()).classad()
    kinds = QUERY_TYPES[call.command]
    constraint = constraint_of(query)
    test = ExprTree(constraint) if constraint else None
    chosen = []
    for raw in call.face.own_ads():
        ad = wire.ad_from_wire(raw, "own ad")
        if str(ad.get("MyType") or "").lower() not in kinds:
            continue
        if test is None or test.eval(scope=ad) is True:
            chosen.append(ad)
    out = call.writer()
    for row in put_ads(chosen, call.conn.encrypted, projection_of(query)):
        out.integer(1).raw(row)
    await call.send(out.integer(0))
    return False


def commands(cfg: Config) -> list[CedarCommand]:
    nops = [CedarCommand(n, level, _nop, forced=level != "READ") for n, level in _NOPS.items()]
    values = [CedarCommand(n, "READ", _config_val(cfg)) for n in (Cmd.DC_CONFIG_VAL, CONFIG_VAL)]
    return [*values, *nops]
