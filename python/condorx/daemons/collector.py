"""The collector: the pool's directory of ads (slots, schedds, submitters, negotiators,
masters), each kept until its lifetime passes without a fresh copy.

Daemons advertise with the pool identity; anyone authenticated may query, with a
constraint and, optionally, expressions to evaluate per ad (condor_status -af).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import trio

from condorx import locate, security, wire
from condorx.classad import ClassAd
from condorx.config import Config
from condorx.daemons import query
from condorx.daemons.server import Handler, Peer, Server
from condorx.errors import Refused
from condorx.protocol.collector import Advertise, Invalidate, QueryAds
from condorx.protocol.message import Count, Message

log = logging.getLogger("condorx.collector")

CHUNK = 5_000


@dataclass
class Entry:
    ad: ClassAd
    expires: float


class Collector:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.ads: dict[tuple[str, str], Entry] = {}
        self.default_lifetime = cfg.get_int("CLASSAD_LIFETIME", 900)

    def _expire(self, now: float) -> None:
        dead = [k for k, e in self.ads.items() if e.expires <= now]
        for k in dead:
            del self.ads[k]

    async def advertise(self, peer: Peer, req: Advertise, ch: wire.Channel) -> Count:
        now = time.time()
        ads = wire.ads_from_wire(req.ads)
        for i, ad in enumerate(ads):
            kind, name = ad.get("MyType"), ad.get("Name")
            if not isinstance(kind, str) or not isinstance(name, str):
                raise Refused("bad-request", f"ad {i}: MyType and Name must be strings")
            lifetime = ad.get("ClassAdLifetime")
            if not isinstance(lifetime, int) or lifetime <= 0:
                lifetime = self.default_lifetime
            ad["LastHeardFrom"] = int(now)
            ad["AuthenticatedIdentity"] = peer.user
            self.ads[(kind.lower(), name)] = Entry(ad, now + lifetime)
        return Count(len(ads))

    async def invalidate(self, peer: Peer, req: Invalidate, ch: wire.Channel) -> Count:
        kind = req.type.lower()
        gone = 0
        for name in req.names:
            if self.ads.pop((kind, str(name)), None) is not None:
                gone += 1
        return Count(gone)

    async def query(self, peer: Peer, req: QueryAds, ch: wire.Channel) -> Count:
        self._expire(time.time())
        kind = req.type.lower()
        ads = [e.ad for (k, _), e in sorted(self.ads.items()) if not kind or k == kind]
        ads = query.select(ads, ads, req.constraint)
        exprs = req.exprs
        for start in range(0, len(ads), CHUNK):
            chunk = ads[start : start + CHUNK]
            if exprs:
                rows: list[Any] = query.evaluate(exprs, chunk)
            else:
                rows = [ad.printOld() for ad in chunk]
            await ch.send({"more": rows})
        return Count(len(ads))

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
    key = security.ensure_pool_key(locate.pool_key_file(cfg))
    server = Server.configured("collector", collector.handlers(), key, cfg)
    host, port = locate.collector_bind(cfg)
    async with trio.open_nursery() as nursery:
        bound = await nursery.start(server.serve_tcp, host, port)
        address = f"<{locate.advertised_host(host)}:{bound}>"
        locate.write_address(locate.collector_address_file(cfg), address)
        nursery.start_soon(collector.expire_loop)
        log.info("collector serving at %s", address)
        task_status.started(address)
