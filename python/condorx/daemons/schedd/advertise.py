"""The schedd's ads in the collector: its own (Scheduler) and one per user with jobs
(Submitter), refreshed every SCHEDD_INTERVAL and soon after the queue changes."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any, Protocol

import trio

from condorx import wire
from condorx.attrs import JobStatus
from condorx.client.collector import CollectorClient
from condorx.client.connection import Address, connect, daemon_credentials
from condorx.config import Config
from condorx.daemons.schedd.queue import JobQueue

log = logging.getLogger("condorx.schedd")


class Advertised(Protocol):
    """What the schedd's ads are made of: its identity and address, its settings, its
    queue, and the event set when the queue changes (renewed here after each update)."""

    cfg: Config
    name: str
    address: str
    uid_domain: str
    queue: JobQueue
    changed: trio.Event


def ads(schedd: Advertised) -> list[dict[str, Any]]:
    by_user: dict[str, Counter[int]] = {}
    totals: Counter[int] = Counter()
    for _, ad in schedd.queue.snapshot():
        status = ad.get("JobStatus")
        by_user.setdefault(str(ad.get("Owner")), Counter())[status] += 1
        totals[status] += 1
    interval = schedd.cfg.get_int("SCHEDD_INTERVAL", 300)
    common = {
        "ScheddIpAddr": schedd.address,
        "MyAddress": schedd.address,
        "ClassAdLifetime": interval * 3,
        "Machine": schedd.uid_domain,
    }
    out = [
        {
            "MyType": "Scheduler",
            "Name": schedd.name,
            **common,
            "TotalIdleJobs": totals[JobStatus.IDLE],
            "TotalRunningJobs": totals[JobStatus.RUNNING],
            "TotalHeldJobs": totals[JobStatus.HELD],
            "TotalJobAds": sum(totals.values()),
        }
    ]
    for user, c in sorted(by_user.items()):
        out.append(
            {
                "MyType": "Submitter",
                "Name": f"{user}@{schedd.uid_domain}",
                "Owner": user,
                "ScheddName": schedd.name,
                **common,
                "IdleJobs": c[JobStatus.IDLE],
                "RunningJobs": c[JobStatus.RUNNING],
                "HeldJobs": c[JobStatus.HELD],
            }
        )
    return out


async def loop(schedd: Advertised) -> None:
    collector = CollectorClient(schedd.cfg, daemon_credentials(schedd.cfg))
    interval = max(1, schedd.cfg.get_int("SCHEDD_INTERVAL", 300))
    while True:
        wait = interval
        try:
            await collector.advertise(ads(schedd))
        except (OSError, wire.WireError) as e:
            log.warning("cannot update the collector: %s", e)
            wait = min(wait, 2)  # try again soon: the collector may be starting
        with trio.move_on_after(wait):
            await schedd.changed.wait()
        schedd.changed = trio.Event()
        await trio.sleep(min(1.0, interval))  # one update for a burst of changes


async def reschedule(schedd: Advertised) -> None:
    """Ask the negotiator for a cycle now (after a submission), as condor_reschedule does."""
    collector = CollectorClient(schedd.cfg, daemon_credentials(schedd.cfg))
    try:
        # The negotiator reads our idle count from the collector: bring it up to date first.
        await collector.advertise(ads(schedd))
        negotiators = await collector.query_rows("negotiator", ["MyAddress"])
        for (address,) in negotiators:
            if isinstance(address, str):
                ch = await connect(Address.parse(address), collector.creds)
                try:
                    await ch.request({"cmd": "reschedule"})
                finally:
                    await ch.aclose()
    except (OSError, wire.WireError) as e:
        log.info("cannot ask for a negotiation cycle: %s", e)
