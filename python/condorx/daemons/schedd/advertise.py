"""The schedd's ads in the collector: its own (Scheduler) and one per user with jobs
(Submitter), refreshed every SCHEDD_INTERVAL and soon after the queue changes; and
asking the negotiator for a cycle."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

import trio

from condorx import version
from condorx.client import negotiator
from condorx.client.collector import CollectorClient
from condorx.daemons.core import daemon_stats
from condorx.daemons.core.advertiser import Advertiser
from condorx.daemons.schedd.flocking import Flocking
from condorx.daemons.schedd.identity import Identity
from condorx.daemons.schedd.job_stats import JobStats
from condorx.daemons.schedd.ledger import Ledger
from condorx.language.attrs import JobStatus
from condorx.language.config import Config
from condorx.transport import wire
from condorx.transport.connection import Address, daemon_credentials

log = logging.getLogger("condorx.schedd")


def ads(
    ledger: Ledger,
    me: Identity,
    flocking: Flocking | None = None,
    stats: JobStats | None = None,
) -> list[dict[str, Any]]:
    """The Scheduler ad and one Submitter ad per submitter with jobs (its accounting
    name: the jobs' AccountingGroup, else their Owner, as HTCondor's schedd names its
    submitters), from the queue now; with FLOCK_TO, each submitter's flock level
    (FlockLevel), and the schedd's (the deepest, with MinFlockLevel and MaxFlockLevel)."""
    by_user: dict[str, Counter[int | None]] = {}
    owners: dict[str, set[str]] = {}
    totals: Counter[int | None] = Counter()
    for (owner, account, status), n in ledger.counts().items():
        by_user.setdefault(account, Counter())[status] += n
        owners.setdefault(account, set()).add(owner)
        totals[status] += n
    common = {
        "ScheddIpAddr": me.address,
        "MyAddress": me.address,
        "ClassAdLifetime": me.interval * 3,
        "Machine": me.uid_domain,
        **version.stamp(),
    }
    out = [
        {
            "MyType": "Scheduler",
            "Name": me.name,
            **common,
            "TotalIdleJobs": totals[JobStatus.IDLE],
            "TotalRunningJobs": totals[JobStatus.RUNNING],
            "TotalHeldJobs": totals[JobStatus.HELD],
            "TotalJobAds": sum(totals.values()),
            **daemon_stats.ad(),
            **(stats.ad() if stats is not None else {}),
        }
    ]
    levels: dict[str, int] = {}
    if flocking is not None and flocking.enabled():
        levels = {name: reach.level for name, reach in flocking.reach.items()}
        out[0]["FlockLevel"] = max(levels.values(), default=flocking.min_level)
        out[0]["MinFlockLevel"] = flocking.min_level
        out[0]["MaxFlockLevel"] = flocking.max_level
    for user, c in sorted(by_user.items()):
        out.append(
            {
                "MyType": "Submitter",
                "Name": f"{user}@{me.uid_domain}",
                # A group's submitter may hold jobs of more than one owner: the first.
                "Owner": min(owners[user]),
                "ScheddName": me.name,
                **common,
                "IdleJobs": c[JobStatus.IDLE],
                "RunningJobs": c[JobStatus.RUNNING],
                "HeldJobs": c[JobStatus.HELD],
            }
        )
        if flocking is not None and flocking.enabled():
            out[-1]["FlockLevel"] = levels.get(user, flocking.min_level)
    return out


# The schedd's ads as they stand now (`ads` with what the schedd adds to them).
Published = Callable[[], list[dict[str, Any]]]


def advertiser(cfg: Config, ledger: Ledger, me: Identity, published: Published) -> Advertiser:
    """Our ads every SCHEDD_INTERVAL, and soon after the queue changes (a burst of
    commits gathered into one update)."""
    collector = CollectorClient(cfg, daemon_credentials(cfg))
    sender = Advertiser(collector, published, me.interval, burst=min(1.0, max(1, me.interval)))
    ledger.on_commit = sender.poke
    return sender


class Reschedules:
    """Asks for negotiation cycles, one at a time and at most one a second: the requests
    that come meanwhile make one more after it, not one each (a DAG's node submissions,
    hundreds a second, would otherwise each cost a collector update, a negotiator call
    and a negotiation cycle)."""

    spacing = 1.0

    def __init__(self, cfg: Config, published: Published) -> None:
        self.cfg = cfg
        self.published = published
        self._busy = False
        self._again = False

    def request(self, nursery: trio.Nursery) -> None:
        if self._busy:
            self._again = True
            return
        self._busy = True
        nursery.start_soon(self._run)

    async def _run(self) -> None:
        try:
            while True:
                self._again = False
                started = trio.current_time()
                await reschedule(self.cfg, self.published)
                if not self._again:
                    return
                await trio.sleep_until(started + self.spacing)
        finally:
            self._busy = False


async def reschedule(cfg: Config, published: Published) -> None:
    """Ask the negotiator for a cycle now (after a submission), as condor_reschedule does."""
    collector = CollectorClient(cfg, daemon_credentials(cfg))
    try:
        # The negotiator reads our idle count from the collector: bring it up to date first.
        await collector.advertise(published())
        negotiators = await collector.query_rows("negotiator", ["MyAddress"])
        for (address,) in negotiators:
            if isinstance(address, str):
                await negotiator.reschedule(Address.parse(address), collector.creds)
    except (OSError, wire.WireError) as e:
        log.info("cannot ask for a negotiation cycle: %s", e)
