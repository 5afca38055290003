"""The schedd's submitters in the pools it flocks to: every SCHEDD_INTERVAL, each pool
of FLOCK_COLLECTOR_HOSTS gets an ad for each submitter that reaches it (`flocking`),
tagged with the pool (SubmitterTag) as HTCondor's schedd tags them.

Beside each goes a private ad (SubmitterPrivate, read only with NEGOTIATOR permission)
whose Capability is a token this schedd made for that pool's negotiator: scoped to
NEGOTIATOR and good for max(60 s, two SCHEDD_INTERVALs), as HTCondor's schedd sets up a
negotiator session for each flock collector. It is how a negotiator of another pool
proves itself here, and which pool it speaks for.

Every pool is updated at once, each within the interval: a pool that never answers costs
only its own update, and moves the submitters waiting on it one pool further.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import trio

from condorx.client.collector import CollectorClient
from condorx.daemons.schedd.flocking import Flocking
from condorx.daemons.schedd.identity import Identity
from condorx.language.config import Config
from condorx.transport import locate, security
from condorx.transport.connection import daemon_credentials
from condorx.transport.peer import PEER_FAILURES, Peer, why

log = logging.getLogger("condorx.schedd")

# What a submitter's counts are, for these ads: idle jobs by name, and the jobs running in
# each flocked pool by (name, pool).
Counts = Callable[[], tuple[dict[str, int], Counter[tuple[str, str]]]]


class Capabilities:
    """The tokens handed to other pools' negotiators, by token id: which pool each speaks
    for, and one current token per pool (made again once half its life is gone)."""

    def __init__(self, cfg: Config, interval: int) -> None:
        self.cfg = cfg
        self.lifetime = max(60, 2 * interval)
        self.issued: dict[str, tuple[str, float]] = {}  # token id -> (pool, expires)
        self.current: dict[str, tuple[str, float]] = {}  # pool -> (token, renew at)

    def for_pool(self, pool: str, now: float) -> str:
        held = self.current.get(pool)
        if held is not None and now < held[1]:
            return held[0]
        from condorx.transport import tokens

        key = security.ensure_pool_key(locate.pool_key_file(self.cfg))
        token = security.make_token(
            key,
            security.POOL_IDENTITY,
            security.issuer(self.cfg),
            self.lifetime,
            ["condor:/NEGOTIATOR"],
        )
        token_id = tokens.read(token).token_id
        self.issued[token_id] = (pool, now + self.lifetime)
        self.current[pool] = (token, now + self.lifetime / 2)
        for old, (_, expires) in list(self.issued.items()):
            if expires < now:
                del self.issued[old]
        return token

    def pool_of(self, peer: Peer) -> str:
        """The pool whose negotiator `peer` is ("" for this pool's own)."""
        found = self.issued.get(peer.token.get("AuthTokenId", ""))
        return found[0] if found is not None else ""


class FlockAds:
    def __init__(self, cfg: Config, me: Identity, flocking: Flocking, counts: Counts) -> None:
        self.me = me
        self.flocking = flocking
        self.counts = counts
        self.capabilities = Capabilities(cfg, me.interval)
        creds = daemon_credentials(cfg)
        self.collectors = [CollectorClient(cfg, creds, address=pool) for pool in flocking.pools]
        self.timeout = float(min(max(1, me.interval), 20))
        self.wake = trio.Event()

    def finished(self, pool: str, names: list[str], unsatisfied: set[str]) -> None:
        """A negotiator of `pool` ("" for ours) is done with these submitters; those in
        `unsatisfied` had jobs it rejected or never got to. A submitter that reaches a
        pool further for it is advertised there at once, as HTCondor's schedd does."""
        now = trio.current_time()
        before = {name: self.flocking.of(name, now).level for name in names}
        for name in names:
            self.flocking.negotiated(name, pool, name not in unsatisfied, now)
        if any(self.flocking.reach[name].level > level for name, level in before.items()):
            self.wake.set()

    def ads(
        self, level: int, now: float, idle: dict[str, int], running: Counter[tuple[str, str]]
    ) -> list[dict[str, Any]]:
        """The ads for the pool at `level`: each submitter that reaches it (`idle` and
        `running`, the round's counts), and its private ad."""
        pool = self.flocking.pools[level - 1]
        capability = self.capabilities.for_pool(pool, now)
        out: list[dict[str, Any]] = []
        there = {name for name, at in running if at == pool}
        for submitter in sorted(idle.keys() | there):
            here = running[submitter, pool]
            shown = self.flocking.idle_for(submitter, level, idle.get(submitter, 0), here)
            if shown is None:
                continue
            name = f"{submitter}@{self.me.uid_domain}"
            common = {"Name": name, "ScheddName": self.me.name, "SubmitterTag": pool}
            out.append(
                {
                    "MyType": "Submitter",
                    **common,
                    "ScheddIpAddr": self.me.address,
                    "MyAddress": self.me.address,
                    "IdleJobs": shown,
                    "RunningJobs": here,
                    "ClassAdLifetime": self.me.interval * 3,
                }
            )
            out.append(
                {
                    "MyType": "SubmitterPrivate",
                    **common,
                    "Capability": capability,
                    "ClassAdLifetime": self.me.interval * 3,
                }
            )
        return out

    async def update(self) -> None:
        """One round: every pool at once, then every submitter's level counts as sent."""
        now = trio.current_time()
        idle, running = self.counts()  # once: every pool's ads read the same
        self.flocking.tick(idle, now)
        async with trio.open_nursery() as nursery:
            for level in range(1, self.flocking.max_level + 1):
                nursery.start_soon(self._send, self.ads(level, now, idle, running), level)
        self.flocking.sent()

    async def _send(self, ads: list[dict[str, Any]], level: int) -> None:
        if not ads:
            return
        pool = self.flocking.pools[level - 1]
        try:
            with trio.fail_after(self.timeout):
                await self.collectors[level - 1].advertise(ads)
        except PEER_FAILURES as e:
            log.warning("cannot update the collector of flocked pool %s: %s", pool, why(e))
            for ad in ads:
                if ad["MyType"] == "Submitter":
                    self.flocking.unreachable(ad["Name"].rsplit("@", 1)[0], level)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        if not self.flocking.enabled():
            await trio.sleep(math.inf)
        while True:
            await self.update()
            with trio.move_on_after(self.me.interval):
                await self.wake.wait()
            self.wake = trio.Event()
