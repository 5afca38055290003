"""The slots the negotiator has handed out and not yet seen advertised again.

A match changes the slot at its startd at once, but the collector shows the change only
when the startd next advertises (a moment later, a burst of changes gathered into one
update). A cycle run in between (they come one on another when several submissions each
ask for one) would offer the slot again on its old ad, and the startd would refuse it.
So a slot handed out sits the cycles out until the collector holds another ad for it
than the one it was matched on, or until `bound` seconds have passed: a safeguard for an
ad that never changes (its startd has stopped advertising, and the ad lives on until
it expires); offered again then, the worst is a refusal, which costs a log line. (So
is an ad the startd sent between the cycle's reading and its hand-out: another ad, but
one that does not show the match yet.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from condorx.classad import ClassAd


def stamp(ad: ClassAd) -> tuple[Any, Any]:
    """What tells one advertisement of a slot from the next: the startd's count of its
    advertisements, and when the collector heard this one (which also tells a restarted
    startd, whose count starts again, from the old one)."""
    return (ad.get("UpdateSequenceNumber"), ad.get("LastHeardFrom"))


@dataclass(frozen=True)
class _Held:
    stamp: tuple[Any, Any]  # of the ad the slot was matched on
    since: float  # when it was handed out, on `clock`


class HandedOut:
    def __init__(self, bound: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.bound = bound
        self.clock = clock
        self.held: dict[str, _Held] = {}

    def hold(self, slot: ClassAd) -> None:
        """The slot (as its ad showed it) has just been handed out, taken or not: a slot
        whose startd refused it was not what its ad said either."""
        name = slot.get("Name")
        if isinstance(name, str):
            self.held[name] = _Held(stamp(slot), self.clock())

    def unheld(self, slots: Sequence[ClassAd]) -> list[ClassAd]:
        """The slots that may be offered, given every slot the collector has now: a hold
        ends when its slot's ad has changed, is gone, or `bound` has passed."""
        current = {s.get("Name"): s for s in slots}
        now = self.clock()
        for name, held in list(self.held.items()):
            ad = current.get(name)
            if ad is None or stamp(ad) != held.stamp or now - held.since >= self.bound:
                del self.held[name]
        return [s for s in slots if s.get("Name") not in self.held]
