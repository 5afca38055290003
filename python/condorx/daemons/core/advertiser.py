"""A daemon's ads in the collector, kept fresh: the one advertise loop every daemon runs.

The ads go out every `interval`, and soon after the daemon says they changed (`poke`),
a burst of changes gathered into one update. A collector that cannot be reached or
refuses is retried within 2 s (it may be starting with the daemon): a daemon never
stops for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import trio

from condorx.client.collector import CollectorClient
from condorx.transport.peer import PEER_FAILURES, why

log = logging.getLogger("condorx.advertise")


class Advertiser:
    def __init__(
        self,
        collector: CollectorClient,
        ads: Callable[[], list[dict[str, Any]]],
        interval: float,
        *,
        burst: float = 0.2,
        timeout: float = 30.0,
        first_delay: float = 0.0,
    ) -> None:
        self.collector = collector
        self.ads = ads  # the ads as they stand now
        self.interval = max(1.0, interval)
        self.burst = burst  # how long a change waits for others to join it
        self.timeout = timeout
        self.first_delay = first_delay
        self.changed = trio.Event()

    def poke(self) -> None:
        """The ads changed: send them soon."""
        self.changed.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        await trio.sleep(self.first_delay)
        while True:
            wait = self.interval
            try:
                with trio.fail_after(self.timeout):
                    await self.collector.advertise(self.ads())
            except PEER_FAILURES as e:
                log.warning("cannot update the collector: %s", why(e))
                wait = min(wait, 2.0)
            with trio.move_on_after(wait):
                await self.changed.wait()
            self.changed = trio.Event()
            await trio.sleep(self.burst)
