"""The collector's CEDAR commands: every QUERY_* and the updates.

A query's ad names a constraint (`Requirements`), the attributes wanted (`Projection`,
space- or comma-separated) and at most how many ads (`LimitResults`); the answer is one
message, `[1][ad] ... [1][ad] [0]`. An update carries the ad (a daemon's private ad may
follow it); further `[command][ad]` updates may follow on the same session, until the
client sends DC_NOP or closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from condorx.classad import ClassAd
from condorx.transport import wire
from condorx.transport.cedar.codec import CedarError
from condorx.transport.cedar.commands import QUERY_TYPES, Cmd
from condorx.transport.cedar.face import Call, CedarCommand
from condorx.transport.cedar.query_ad import constraint_of, limit_of, projection_of
from condorx.transport.protocol.collector import Advertise, Invalidate, QueryAds

_ALL_TYPES = (
    Cmd.QUERY_ANY_ADS,
    Cmd.QUERY_GENERIC_ADS,
    Cmd.QUERY_MULTIPLE_ADS,
    Cmd.QUERY_MULTIPLE_PVT_ADS,
)
_UPDATES = (
    Cmd.UPDATE_STARTD_AD,
    Cmd.UPDATE_SCHEDD_AD,
    Cmd.UPDATE_MASTER_AD,
    Cmd.UPDATE_SUBMITTOR_AD,
    Cmd.UPDATE_COLLECTOR_AD,
    Cmd.UPDATE_NEGOTIATOR_AD,
    Cmd.UPDATE_AD_GENERIC,
    Cmd.UPDATE_STARTD_AD_WITH_ACK,
    Cmd.UPDATE_ACCOUNTING_AD,
    Cmd.UPDATE_OWN_SUBMITTOR_AD,
)


_MULTIPLE = (Cmd.QUERY_MULTIPLE_ADS, Cmd.QUERY_MULTIPLE_PVT_ADS)


@dataclass(frozen=True)
class _Part:
    """One ad type a query asks for, with its constraint and limit."""

    kind: str
    constraint: str | None
    limit: int | None


def _parts(command: int, query: ClassAd) -> list[_Part]:
    constraint, limit = constraint_of(query), limit_of(query)
    target = query.get("TargetType")
    if command in _MULTIPLE and isinstance(target, str) and target.strip():
        # QUERY_MULTIPLE: a list of types, each with its own <Type>Requirements and
        # <Type>LimitResults if it has them (HTCondor's collector reads them so).
        parts = []
        for tag in target.replace(",", " ").split():
            own = query.lookup(f"{tag}Requirements") if f"{tag}Requirements" in query else None
            tag_limit = query.get(f"{tag}LimitResults")
            parts.append(
                _Part(
                    tag.lower(),
                    str(own) if own is not None else constraint,
                    tag_limit if isinstance(tag_limit, int) and tag_limit > 0 else limit,
                )
            )
        return parts
    if command in _ALL_TYPES:
        if isinstance(target, str) and target and target.lower() not in ("any", "*"):
            return [_Part(target.lower(), constraint, limit)]
        return [_Part("", constraint, limit)]
    return [_Part(kind, constraint, None) for kind in QUERY_TYPES[command]]


def _taker(rows: list[bytes]) -> Any:
    async def take(chunk: Any) -> None:
        rows.extend(chunk)

    return take


async def _query(call: Call) -> bool:
    query = (await call.payload()).classad()
    encoding = "encrypted" if call.conn.encrypted else "clear"
    found: list[bytes] = []
    for part in _parts(call.command, query):
        rows: list[bytes] = []
        take = _taker(rows)
        request = QueryAds(
            type=part.kind,
            constraint=part.constraint,
            cedar=encoding,
            projection=projection_of(query),
        )
        reply = await call.dispatch(request, take)
        if not reply.get("ok"):
            raise CedarError(f"query refused: {reply.get('error')}")
        found += rows[: part.limit] if part.limit else rows
    limit = limit_of(query) if call.command not in _MULTIPLE else None
    out = call.writer()
    for row in found[:limit] if limit else found:
        out.integer(1).raw(row)
    await call.send(out.integer(0))
    return False


async def _update(call: Call) -> bool:
    msg = await call.payload()
    ad = msg.classad()
    ads = [ad]
    if not msg.at_end():  # a daemon's private ad (a startd's claim ids)
        private = msg.classad()
        if call.command in (Cmd.UPDATE_STARTD_AD, Cmd.UPDATE_STARTD_AD_WITH_ACK):
            private["MyType"] = "MachinePrivate"
            for name in ("Name", "MyAddress", "ClassAdLifetime"):
                if name not in private and name in ad:
                    private[name] = ad[name]
            ads.append(private)
    reply = await call.dispatch(Advertise(wire.pack_classads(ads)))
    if call.command == Cmd.UPDATE_STARTD_AD_WITH_ACK:
        await call.send(call.writer().integer(1 if reply.get("ok") else 0))
    return bool(reply.get("ok"))


# INVALIDATE_* and the ad type each drops (GENERIC: the ad's own TargetType).
_INVALIDATES: dict[int, str] = {
    Cmd.INVALIDATE_STARTD_ADS: "machine",
    Cmd.INVALIDATE_SCHEDD_ADS: "scheduler",
    Cmd.INVALIDATE_MASTER_ADS: "daemonmaster",
    Cmd.INVALIDATE_SUBMITTOR_ADS: "submitter",
    Cmd.INVALIDATE_COLLECTOR_ADS: "collector",
    Cmd.INVALIDATE_NEGOTIATOR_ADS: "negotiator",
    Cmd.INVALIDATE_ACCOUNTING_ADS: "accounting",
    Cmd.INVALIDATE_ADS_GENERIC: "",
}


async def _invalidate(call: Call) -> bool:
    """Drop the ads the request names (its Name) or chooses (its Requirements)."""
    ad = (await call.payload()).classad()
    kind = _INVALIDATES[call.command]
    if not kind:
        target = ad.get("TargetType")
        kind = target.lower() if isinstance(target, str) else ""
    name = ad.get("Name")
    names: list[str] = [name] if isinstance(name, str) else []
    if not names and kind:

        async def take(rows: Any) -> None:
            names.extend(str(row[0]) for row in rows if row and isinstance(row[0], str))

        query = QueryAds(type=kind, constraint=constraint_of(ad), exprs=["Name"])
        await call.dispatch(query, take)
    if kind and names:
        await call.dispatch(Invalidate(type=kind, names=list(names)))
    return True  # more updates may follow on the session


# Queries of private ads: HTCondor's negotiator's alone.
_PRIVATE_QUERIES = (Cmd.QUERY_STARTD_PVT_ADS, Cmd.QUERY_MULTIPLE_PVT_ADS)


def commands() -> list[CedarCommand]:
    out = [
        CedarCommand(n, "NEGOTIATOR" if n in _PRIVATE_QUERIES else "READ", _query)
        for n in QUERY_TYPES
    ]
    out += [CedarCommand(n, _level(n), _update) for n in _UPDATES]
    out += [CedarCommand(n, _level(n), _invalidate) for n in _INVALIDATES]
    return out


# Each update's and invalidation's permission level, as HTCondor's collector registers
# them (the ADVERTISE_* lists fall back to DAEMON's; the others are DAEMON).
_LEVELS: dict[int, str] = {
    Cmd.UPDATE_STARTD_AD: "ADVERTISE_STARTD",
    Cmd.UPDATE_STARTD_AD_WITH_ACK: "ADVERTISE_STARTD",
    Cmd.INVALIDATE_STARTD_ADS: "ADVERTISE_STARTD",
    Cmd.UPDATE_SCHEDD_AD: "ADVERTISE_SCHEDD",
    Cmd.UPDATE_SUBMITTOR_AD: "ADVERTISE_SCHEDD",
    Cmd.INVALIDATE_SCHEDD_ADS: "ADVERTISE_SCHEDD",
    Cmd.INVALIDATE_SUBMITTOR_ADS: "ADVERTISE_SCHEDD",
    Cmd.UPDATE_MASTER_AD: "ADVERTISE_MASTER",
    Cmd.INVALIDATE_MASTER_ADS: "ADVERTISE_MASTER",
    Cmd.UPDATE_NEGOTIATOR_AD: "NEGOTIATOR",
    Cmd.UPDATE_ACCOUNTING_AD: "NEGOTIATOR",
    Cmd.INVALIDATE_NEGOTIATOR_ADS: "NEGOTIATOR",
    Cmd.INVALIDATE_ACCOUNTING_ADS: "NEGOTIATOR",
}


def _level(command: int) -> str:
    return _LEVELS.get(command, "DAEMON")
