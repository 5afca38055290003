"""Each route's recent failures (Job Router manual, FailureRateThreshold and JobFailureTest).

Every routed copy that leaves the queue is judged once: a removed copy is a failure; a
completed one is a failure when its route's JobFailureTest (the route as MY, the copy
as TARGET, `other.RemoteWallClockTime < 1800`) is true, else a success. A route's
failure rate is its failures less its successes over the last WINDOW seconds, per
second; above FailureRateThreshold the route takes no new jobs until successes (or
time) bring it back under. The judgements come from the schedd's history file, so a
router started afresh (or after `kill -9`) knows the same rates.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable

from condorx.classad import ClassAd
from condorx.daemons.job_router.table import Route
from condorx.language.attrs import JobStatus

WINDOW = 60.0


class Failures:
    def __init__(self, window: float = WINDOW) -> None:
        self.window = window
        # route name -> recent (time, +1 failure / -1 success)
        self.recent: dict[str, collections.deque[tuple[float, int]]] = {}
        self.seen_until = 0  # CompletionDate of the newest copy judged
        self.seen_last: set[str] = set()  # the copies judged that left in that second

    def judge(self, finished: Iterable[ClassAd], routes: dict[str, Route]) -> None:
        """Record copies that left the queue since the last call (newest first)."""
        batch = []
        for ad in finished:
            when = ad.get("CompletionDate")
            if not isinstance(when, int) or when < self.seen_until:
                break
            if when == self.seen_until and str(ad.get("GlobalJobId")) in self.seen_last:
                continue
            batch.append((when, ad))
        if batch:
            newest = max(when for when, _ in batch)
            if newest > self.seen_until:
                self.seen_until, self.seen_last = newest, set()
            self.seen_last |= {str(ad.get("GlobalJobId")) for w, ad in batch if w == newest}
        for when, ad in reversed(batch):
            name = ad.get("RouteName")
            if not isinstance(name, str) or ad.get("RoutedFromJobId") is None:
                continue
            failed = _failed(ad, routes.get(name))
            self.recent.setdefault(name, collections.deque()).append((float(when), failed))

    def rate(self, route: str, now: float) -> float:
        """Failures less successes per second over the window (never below 0)."""
        events = self.recent.get(route)
        if not events:
            return 0.0
        while events and events[0][0] < now - self.window:
            events.popleft()
        return max(0, sum(e for _, e in events)) / self.window

    def throttled(self, route: Route, now: float) -> bool:
        return self.rate(route.name, now) > route.failure_threshold


def _failed(ad: ClassAd, route: Route | None) -> int:
    if ad.get("JobStatus") == JobStatus.REMOVED:
        return 1
    if route is not None and route.evaluates("JobFailureTest", ad) is True:
        return 1
    return -1
