"""The negotiator's hand-out of a cycle's matches, in batches.

Each chunk of matches (in the cycle's order, so the first matched are the first told)
goes to the jobs' schedds, one `MatchedMany` per schedd, each match under the claim id
its slot offers: the startd learns of it from the schedd's claim, as HTCondor's does by
default. A match the startd must hear of first (a preempting one, whose slot's job must
make way; every match under NEGOTIATOR_INFORM_STARTD) goes first to the slots' startds,
one `Matches` request per startd, and on to the schedds once its startd took it; each
over the connection the negotiator keeps to that daemon (`Peers`), at most `limit`
daemons at a time. A peer that refuses an item costs that match; a peer that fails
costs its part of the chunk; either way a log line, and the jobs stay idle for a later
cycle (a slot its startd took but the schedd did not lapses after MATCH_TIMEOUT).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import trio

from condorx.client.peers import Peers
from condorx.record import replace
from condorx.transport import wire
from condorx.transport.peer import PEER_FAILURES, why
from condorx.transport.protocol.message import Each, Message
from condorx.transport.protocol.schedd.peers import Matched, MatchedMany, Rejected
from condorx.transport.protocol.startd import Match, Matches

log = logging.getLogger("condorx.negotiator")

# What a peer can do to a request: refuse it (RemoteError), break the connection or the
# protocol, send what does not parse, or not answer within NEGOTIATOR_TIMEOUT.

# Failures of a batch logged one line per match; the rest of the batch in one line.
_LOGGED = 3


@dataclass(frozen=True)
class Offer:
    """One match to hand out: what the slot's startd is told, and whose job it is."""

    match: Match
    startd: str  # the startd's address
    schedd: str  # the job's schedd's address
    submitter: str
    job_id: str
    slot: str = ""  # the slot the claim is for, once the startd has named it (a dynamic one)
    inform: bool = True  # the startd hears of the match first (else from the claim)
    fs_domain: str = ""  # the slot's FileSystemDomain, for the schedd


class HandOut:
    def __init__(self, peers: Peers, *, limit: int = 64, chunk: int = 20000) -> None:
        self.peers = peers
        self.limit = trio.CapacityLimiter(max(1, limit))
        self.chunk = max(1, chunk)
        self.failed: dict[str, str] = {}  # daemons that failed in this hand-out, and why

    async def deliver(self, offers: Sequence[Offer]) -> int:
        """Hand every offer out; how many matches both peers took. A daemon that failed
        (not one that refused) is not asked again in the same hand-out."""
        self.failed = {}
        made = 0
        for i in range(0, len(offers), self.chunk):
            chunk = offers[i : i + self.chunk]
            taken = await self._to_startds([o for o in chunk if o.inform])
            taken += [replace(o, slot=o.match.slot) for o in chunk if not o.inform]
            made += await self._to_schedds(taken)
        return made

    async def _to_startds(self, offers: Sequence[Offer]) -> list[Offer]:
        """The offers whose startd took them, each with the name of its slot."""
        taken: list[Offer] = []

        async def tell(startd: str, group: list[Offer]) -> None:
            items = [o.match.to_wire() for o in group]
            reply = await self._batch(startd, Matches(items), len(group))
            for i, offer in enumerate(group):
                refused = reply.refusal(i)
                slot = reply.results[i].get("slot") if refused is None else None
                if isinstance(slot, str):
                    taken.append(replace(offer, slot=slot))
                else:
                    _not_made([offer], refused or "the startd named no slot")

        await self._each(_grouped(offers, lambda o: o.startd), tell)
        return taken

    async def _to_schedds(self, taken: list[Offer]) -> int:
        made = 0

        async def tell(schedd: str, group: list[Offer]) -> None:
            nonlocal made
            items = [_matched(offer).to_wire() for offer in group]
            reply = await self._batch(schedd, MatchedMany(items), len(group))
            for i, offer in enumerate(group):
                refused = reply.refusal(i)
                if refused is None:
                    made += 1
                else:
                    _not_made([offer], refused)

        await self._each(_grouped(taken, lambda o: o.schedd), tell)
        return made

    async def tell_rejected(
        self,
        by_schedd: dict[str, list[list[str]]],
        me: str,
        negotiated: Mapping[str, list[str] | None],
    ) -> None:
        """Each schedd negotiated with hears which of its jobs the cycle left unmatched,
        and why, and for which of its submitters the negotiation is over (`negotiated`;
        None: all of them). A schedd that fails to hear costs only its jobs'
        LastRejMatchReason and its submitters' flocking."""
        now = int(time.time())

        async def one(address: str, items: list[list[str]]) -> None:
            async with self.limit:
                names = negotiated.get(address)
                try:
                    await self.peers.request(address, Rejected(items, me, now, names))
                except PEER_FAILURES as e:
                    log.info("could not tell %s of %d rejections: %s", address, len(items), why(e))

        async with trio.open_nursery() as nursery:
            for address in {**negotiated, **by_schedd}:
                nursery.start_soon(one, address, by_schedd.get(address, []))

    async def _batch(self, address: str, request: Message, count: int) -> Each:
        reply = Each.from_wire(await self.peers.request(address, request))
        if len(reply.results) != count:
            raise wire.WireError(f"{len(reply.results)} answers to {count} matches")
        return reply

    async def _each(
        self,
        groups: dict[str, list[Offer]],
        tell: Callable[[str, list[Offer]], Awaitable[None]],
    ) -> None:
        async def one(address: str, group: list[Offer]) -> None:
            if address in self.failed:
                _not_made(group, f"{self.failed[address]} (earlier in this hand-out)")
                return
            async with self.limit:
                try:
                    await tell(address, group)
                except PEER_FAILURES as e:
                    if not isinstance(e, wire.RemoteError):
                        self.failed[address] = why(e)
                    _not_made(group, why(e))

        async with trio.open_nursery() as nursery:
            for address, group in groups.items():
                nursery.start_soon(one, address, group)


def _grouped(items: Sequence[Offer], key: Callable[[Offer], str]) -> dict[str, list[Offer]]:
    groups: dict[str, list[Offer]] = defaultdict(list)
    for item in items:
        groups[key(item)].append(item)
    return groups


def _matched(offer: Offer) -> Matched:
    m = offer.match
    # The job stands for its autocluster: the schedd runs whichever of it still waits. A
    # startd not told of the match carves the dynamic slot when the schedd claims it.
    return Matched(
        offer.job_id,
        m.claim_id,
        offer.startd,
        offer.slot,
        m.user,
        autocluster=True,
        request=None if offer.inform else m.request,
        fs_domain=offer.fs_domain,
        limits=m.limits,
    )


def _not_made(offers: list[Offer], reason: str) -> None:
    for o in offers[:_LOGGED]:
        log.info("match of %s with %s not made: %s", o.submitter, o.match.slot, reason)
    if len(offers) > _LOGGED:
        log.info("%d more matches not made: %s", len(offers) - _LOGGED, reason)
