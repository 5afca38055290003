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

A static slot matched under the claim id it offers (its startd not told) shows the
match only once the schedd's claim is made, which may take a while when a cycle hands
out thousands: its hold ends, not at its next ad, but when it offers another claim id
(the one matched was spent on a claim) or shows another state, or after `claim_bound`
seconds (MATCH_TIMEOUT: how long a schedd has to claim).

A partitionable slot carved for matches shows them only as its schedds claim them, one
claim at a time, while its ad changes for other reasons too (its readings): its hold
ends once its ad shows every carving (condorx's startd counts them, DynamicSlotsCarved;
another's: its Cpus down to what the matches left), or after `claim_bound` seconds.
Until then the matches' concurrency limits are the negotiator's to count
(`limits.PoolLimits`): an ad that shows only some of them would undercount.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.negotiator.pool_usage import charged_name


def stamp(ad: ClassAd) -> tuple[Any, Any]:
    """What tells one advertisement of a slot from the next: the startd's count of its
    advertisements, and when the collector heard this one (which also tells a restarted
    startd, whose count starts again, from the old one)."""
    return (ad.get("UpdateSequenceNumber"), ad.get("LastHeardFrom"))


def state_stamp(ad: ClassAd, offer: str | None) -> tuple[Any, ...]:
    """What tells a slot's state from the next: the claim id it offers (a static slot
    offers another once claimed) and its state."""
    return (offer, *(ad.get(a) for a in ("State", "EnteredCurrentState")))


@dataclass(frozen=True)
class _Held:
    stamp: tuple[Any, ...]  # of the ad the slot was matched on
    since: float  # when it was handed out, on `clock`
    by_state: bool  # held until its state changes (else until its next ad)
    cpus_left: int | None = None  # a carved slot: held until its Cpus are down to this
    carvings: int | None = None  # or its DynamicSlotsCarved up to this
    incoming: str | None = None  # preempted for this accounting name: held till it shows


class HandedOut:
    def __init__(
        self, bound: float, claim_bound: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.bound = bound
        self.claim_bound = claim_bound
        self.clock = clock
        self.held: dict[str, _Held] = {}

    def hold(self, slot: ClassAd, offer: str | None = None, incoming: str | None = None) -> None:
        """The slot (as its ad showed it) has just been handed out, taken or not: a slot
        whose startd refused it was not what its ad said either. `offer`: the claim id it
        offers, matched under it (its startd learns of the match only from the claim)."""
        name = slot.get("Name")
        if isinstance(name, str):
            by_state = offer is not None
            seen = state_stamp(slot, offer) if by_state else stamp(slot)
            self.held[name] = _Held(seen, self.clock(), by_state, incoming=incoming)

    def incoming(self) -> dict[str, str]:
        """The slots being taken by preempting matches, and for whom (accounting name)."""
        return {n: h.incoming for n, h in self.held.items() if h.incoming is not None}

    def carve(self, slot: ClassAd, cpus: int) -> None:
        """A partitionable slot (as its ad showed it) has just been carved `cpus` for a
        match: held until its ad shows this carving and the cycle's others."""
        name, have, done = slot.get("Name"), slot.get("Cpus"), slot.get("DynamicSlotsCarved")
        if not isinstance(name, str) or not isinstance(have, int):
            return
        held = self.held.get(name)
        if held is None or held.cpus_left is None:
            left, carvings = have - cpus, (done + 1 if isinstance(done, int) else None)
        else:
            left = held.cpus_left - cpus
            carvings = None if held.carvings is None else held.carvings + 1
        self.held[name] = _Held(stamp(slot), self.clock(), False, max(0, left), carvings)

    def unheld(
        self, slots: Sequence[ClassAd], offers: Mapping[str, str] | None = None
    ) -> list[ClassAd]:
        """The slots that may be offered, given every slot the collector has now (and the
        claim ids they offer): a hold ends when its slot's ad (or offer, or state) has
        changed, is gone, or its bound has passed."""
        current = {s.get("Name"): s for s in slots}
        offers = offers or {}
        now = self.clock()
        for name, held in list(self.held.items()):
            ad = current.get(name)
            if ad is None:
                del self.held[name]
                continue
            if held.incoming is not None:
                # A preempted slot: held (and charged to the incoming name) until its ad
                # shows the incoming claim, or another state than being claimed.
                shows = charged_name(ad) == held.incoming or (
                    ad.get("State") not in ("Claimed", "Preempting")
                )
                if shows or now - held.since >= self.claim_bound:
                    del self.held[name]
                continue
            if held.cpus_left is not None:
                cpus, done = ad.get("Cpus"), ad.get("DynamicSlotsCarved")
                if held.carvings is not None and isinstance(done, int):
                    shown = done >= held.carvings
                else:
                    shown = isinstance(cpus, int) and cpus <= held.cpus_left
                if shown or now - held.since >= self.claim_bound:
                    del self.held[name]
                continue
            seen = state_stamp(ad, offers.get(name)) if held.by_state else stamp(ad)
            bound = self.claim_bound if held.by_state else self.bound
            if seen != held.stamp or now - held.since >= bound:
                del self.held[name]
        return [s for s in slots if s.get("Name") not in self.held]
