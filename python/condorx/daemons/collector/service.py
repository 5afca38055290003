"""The collector: the pool's directory of ads (slots, schedds, submitters, negotiators,
masters), each kept until its lifetime passes without a fresh copy.

Daemons advertise with the pool identity; anyone authenticated may query, with a
constraint and, optionally, expressions to evaluate per ad (condor_status -af).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from condorx.classad import ClassAd, ExprTree, eval_each
from condorx.daemons.core import query
from condorx.daemons.core.server import Handler, Peer, Server
from condorx.errors import Refusal, Refused
from condorx.language.config import Config
from condorx.transport import locate, wire
from condorx.transport.cedar import collector as cedar_collector
from condorx.transport.protocol.collector import Advertise, Invalidate, QueryAds
from condorx.transport.protocol.message import Count, Message

log = logging.getLogger("condorx.collector")

CHUNK = 5_000
# What keys an ad and how long it lives.
_KEYS = [ExprTree(name) for name in ("MyType", "Name", "ClassAdLifetime")]


@dataclass
class Entry:
    ad: ClassAd
    expires: float


# Daemons' private ads (a startd's claim ids): kept beside the public ads of the same
# names, read only with NEGOTIATOR permission, never by a query of every type.
PRIVATE = {"machineprivate": "machine", "submitterprivate": "submitter"}

# The level each type of ad asks of whoever advertises it, as HTCondor's collector
# registers its updates (the ADVERTISE_* lists fall back to DAEMON's): a schedd that
# flocks here from another pool may advertise its submitters, and nothing else.
_ADVERTISE_LEVEL = {
    "machine": "ADVERTISE_STARTD",
    "machineprivate": "ADVERTISE_STARTD",
    "scheduler": "ADVERTISE_SCHEDD",
    "submitter": "ADVERTISE_SCHEDD",
    "submitterprivate": "ADVERTISE_SCHEDD",
    "daemonmaster": "ADVERTISE_MASTER",
    "negotiator": "NEGOTIATOR",
    "accounting": "NEGOTIATOR",
}
# Ads kept by more than their Name: two schedds' submitters may share a name.
_KEYED_BY_SCHEDD = ("submitter", "submitterprivate")
_SCHEDD_NAME = ExprTree("ScheddName")


class Collector:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        # Whether a peer has an HTCondor permission level here (the server's lists).
        self.authorized: Callable[[str, Peer], bool] = lambda level, peer: False
        # By type (lower case), then by name.
        self.ads: dict[str, dict[str, Entry]] = {}
        # Each type's names in order, kept until a name comes or goes: most updates
        # refresh an ad already here, and a query need not sort 100,000 names again.
        self._order: dict[str, list[str]] = {}
        self.default_lifetime = cfg.get_int("CLASSAD_LIFETIME", 900)

    def _expire(self, now: float) -> None:
        for kind, table in self.ads.items():
            dead = [name for name, e in table.items() if e.expires <= now]
            for name in dead:
                del table[name]
            if dead:
                self._order.pop(kind, None)

    async def advertise(self, peer: Peer, req: Advertise, ch: wire.Channel) -> Count:
        now = time.time()
        stamp = ClassAd()
        stamp["LastHeardFrom"] = int(now)
        stamp["AuthenticatedIdentity"] = peer.user
        ads = wire.ads_from_packed(req.ads, stamp=stamp)
        # Each key column in one call into the core: an update carries thousands of ads.
        kinds, names, lifetimes = (eval_each(attr, ads) for attr in _KEYS)
        for i, (kind, name) in enumerate(zip(kinds, names, strict=True)):
            if not isinstance(kind, str) or not isinstance(name, str):
                raise Refused(Refusal.BAD_REQUEST, f"ad {i}: MyType and Name must be strings")
        for kind in {k.lower() for k in kinds}:
            level = _ADVERTISE_LEVEL.get(kind, "DAEMON")
            if not self.authorized(level, peer):
                raise Refused(
                    Refusal.PERMISSION,
                    f"{peer.user} may not advertise {kind} ads: it needs {level} permission",
                )
        default = self.default_lifetime
        keyed = any(k.lower() in _KEYED_BY_SCHEDD for k in kinds)
        schedds = eval_each(_SCHEDD_NAME, ads) if keyed else [None] * len(ads)
        for ad, kind, name, lifetime, schedd in zip(
            ads, kinds, names, lifetimes, schedds, strict=True
        ):
            # An integer, not undefined or error (IntEnums both: Undefined is 2).
            if type(lifetime) is not int or lifetime <= 0:
                lifetime = default
            if kind.lower() in _KEYED_BY_SCHEDD and isinstance(schedd, str):
                name = f"{name}\0{schedd}"
            table = self.ads.setdefault(kind.lower(), {})
            if name not in table:
                self._order.pop(kind.lower(), None)
            table[name] = Entry(ad, now + lifetime)
        return Count(len(ads))

    async def invalidate(self, peer: Peer, req: Invalidate, ch: wire.Channel) -> Count:
        kind = req.type.lower()
        gone = self._drop(kind, req.names)
        for private, public in PRIVATE.items():  # a private ad goes with its public one
            if public == kind:
                self._drop(private, req.names)
        return Count(gone)

    def _drop(self, kind: str, names: list[Any]) -> int:
        table = self.ads.get(kind, {})
        gone = 0
        for name in names:
            if table.pop(str(name), None) is not None:
                gone += 1
        if kind in _KEYED_BY_SCHEDD:  # a name drops that submitter at every schedd
            prefixes = tuple(f"{name}\0" for name in names)
            for key in [k for k in table if k.startswith(prefixes)]:
                del table[key]
                gone += 1
        if gone:
            self._order.pop(kind, None)
        return gone

    def entries(self, kind: str) -> list[Entry]:
        """The ads of a type (every public type when empty), in order of type and name."""
        kinds = [kind] if kind else sorted(k for k in self.ads if k not in PRIVATE)
        out: list[Entry] = []
        for k in kinds:
            table = self.ads.get(k, {})
            order = self._order.get(k)
            if order is None:
                order = self._order[k] = sorted(table)
            out.extend(table[name] for name in order)
        return out

    async def query(self, peer: Peer, req: QueryAds, ch: wire.Channel) -> Count:
        if req.type.lower() in PRIVATE and not self.authorized("NEGOTIATOR", peer):
            raise Refused(Refusal.PERMISSION, f"{peer.user} may not read private ads")
        self._expire(time.time())
        entries = self.entries(req.type.lower())
        entries = query.select(entries, [e.ad for e in entries], req.constraint)
        exprs = req.exprs
        for start in range(0, len(entries), CHUNK):
            chunk = entries[start : start + CHUNK]
            ads = [e.ad for e in chunk]
            if req.cedar is not None:
                await ch.send({"more": query.cedar_rows(ads, req)})
            elif exprs:
                await ch.send({"more": query.evaluate(exprs, ads)})
            else:
                # Whole ads as one msgpack body written and read in the core: the
                # reader parses each distinct expression once, not once an ad.
                await ch.send({"more": wire.pack_classads(ads)})
        return Count(len(entries))

    async def expire_loop(self) -> None:
        while True:
            await trio.sleep(10)
            self._expire(time.time())

    def handlers(self) -> dict[type[Message], Handler]:
        return {Advertise: self.advertise, Invalidate: self.invalidate, QueryAds: self.query}


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    """Run a collector until cancelled; reports its address once it accepts requests."""
    collector = Collector(cfg)
    server = Server.for_daemon("collector", collector.handlers(), cfg, cedar_collector.commands())
    collector.authorized = server.authorized
    host, port = locate.collector_bind(cfg)
    async with trio.open_nursery() as nursery:
        address = await server.listen(
            nursery,
            port,
            host=host,
            unix=Path(locate.collector_socket(cfg)),
            address_file=Path(locate.collector_address_file(cfg)),
        )
        nursery.start_soon(collector.expire_loop)
        log.info("collector serving at %s", address)
        task_status.started(address)
