"""The negotiator's matches and the schedd's claims of the startd's slots: a slot
matched (6), claimed (9; or 5, by the claim id the slot offers in its private ad, when
the negotiator tells the startd nothing, as by default), preempted for a better match
(13, then 23 or 24 once the old job is gone), released (10) or vacated (condor_vacate).

A claim lives as long as the connection it was made on: when the schedd's end closes, the
claim ends with it, its job killed at once (`_schedd_gone`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from condorx.daemons.core import batch
from condorx.daemons.core.server import Peer
from condorx.daemons.startd import coalesce, states
from condorx.daemons.startd.driver import Driver
from condorx.daemons.startd.slots import Claim, Slot
from condorx.daemons.startd.states import State, Step, Why
from condorx.errors import Refusal, Refused
from condorx.record import replace
from condorx.transport import wire
from condorx.transport.protocol.message import Done, Each, Reply
from condorx.transport.protocol.startd import (
    Claimed,
    ClaimSlot,
    Match,
    Matches,
    MatchTaken,
    Release,
    RunEnded,
    RunJob,
    Vacate,
    Vacated,
)

log = logging.getLogger("condorx.startd")

FirstRun = Callable[[Peer, RunJob, wire.Channel], Awaitable[RunEnded]]
# The states a match or an offered claim may take a slot from (a Drained one only while
# its drain's START lets jobs in: `Driver.taking_work`).
_CLAIMABLE = (State.UNCLAIMED, State.OWNER, State.BACKFILL, State.DRAINED)


class Claims:
    def __init__(self, driver: Driver, first_run: FirstRun) -> None:
        """`first_run` runs a claim's first job when the claim brings it (`Runs.run`)."""
        self.driver = driver
        self.first_run = first_run
        # Told of each claim id taken up (the simulator routes a claim's requests by it).
        self.on_claim: Callable[[str], None] = lambda claim_id: None

    async def match(self, peer: Peer, req: Match, ch: wire.Channel) -> MatchTaken:
        slot = self.driver.slot_named(req.slot)
        self.driver.taking_work(slot)
        if slot.claim is not None and slot.claim.id == req.claim_id:
            return MatchTaken(slot.name)  # its schedd claimed it already (5)
        if slot.state == State.CLAIMED and req.preempts:
            return await self._preempting_match(slot, req)
        # An Owner slot takes a job its START accepts too: "if a job matches the
        # resource's START expression, the resource is available to run a job,
        # regardless of if it is in the Owner or Unclaimed state".
        if slot.state not in _CLAIMABLE or slot.claim is not None:
            raise Refused(
                Refusal.BUSY, f"{slot.name} is {slot.state}/{slot.activity}, not Unclaimed"
            )
        drained = slot.state == State.DRAINED  # let in by the drain's START
        if slot.kind == "Partitionable":
            slot = self.driver.carve(slot, req.request or {})
        claim = Claim(
            id=req.claim_id,
            schedd=req.schedd,
            user=req.user,
            matched_at=self.driver.now(),
            while_draining=drained,
            limits=req.limits or "",
            account=req.account or "",
        )
        self.driver.table.set_claim(slot, claim)
        if drained:
            # As HTCondor's (a match for a Drained slot is not Matched): the slot waits
            # Drained for its schedd's claim, within MATCH_TIMEOUT.
            self.driver.touch(slot)
        elif slot.state == State.BACKFILL:
            # The backfill client goes first (28); then Matched (32), or Claimed (31) if
            # the schedd's claim comes while it is being killed.
            slot.flags.pending_match = True
            await self.driver.settle(slot)
        else:
            await self.driver.take(slot, states.MATCHED)
        return MatchTaken(slot.name)

    async def matches(self, peer: Peer, req: Matches, ch: wire.Channel) -> Each:
        return Each(await batch.each(peer, req.items, Match, self.match, ch))

    async def _preempting_match(self, slot: Slot, req: Match) -> MatchTaken:
        """A match for a claimed slot whose job it preempts (the slot's RANK prefers the
        new job, or its user has the better priority): the claim retires (13) and, once
        its job is gone, the slot is the new claim's (23, 24)."""
        if slot.next_claim is not None:
            raise Refused(Refusal.BUSY, f"{slot.name} is already being preempted")
        current = slot.claim
        if req.preempts == "priority" and current is not None:
            if current.user == req.user:  # a stale ad: the user holds it already
                raise Refused(Refusal.BUSY, f"{slot.name} is already claimed by {current.user}")
        slot.next_claim = Claim(
            id=req.claim_id,
            schedd=req.schedd,
            user=req.user,
            matched_at=self.driver.now(),
            limits=req.limits or "",
            account=req.account or "",
        )
        log.info("%s: preempting match (%s) for %s", slot.name, req.preempts, req.user)
        slot.flags.vacate_requested = Why.BETTER_MATCH
        await self.driver.settle(slot)
        return MatchTaken(slot.name)

    async def claim(self, peer: Peer, req: ClaimSlot, ch: wire.Channel) -> Reply:
        """Take up a claim (9, or 5 by a slot's offered claim id); with its first job,
        run that too, on the same request (`ClaimSlot`)."""
        claimed = await self._claim(peer, req)
        self.on_claim(claimed.claim_id or req.claim_id)
        if req.job is None:
            return claimed
        try:
            await ch.send({"more": {"claimed": claimed.to_wire()}})
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            # The schedd's end is gone: so is the claim, once its stream's end is seen.
            raise Refused(Refusal.BUSY, "the schedd's end of the claim is gone") from None
        first = RunJob(claimed.claim_id or req.claim_id, req.job, req.files)
        return await self.first_run(peer, first, ch)

    async def _claim(self, peer: Peer, req: ClaimSlot) -> Claimed:
        if req.coalesce is not None:
            return await self._claim_coalesced(peer, req)
        offered = self._offering(req)
        if offered is not None:
            return await self._claim_offered(offered, peer, req)
        waiting = self._preempting(req.claim_id)
        if waiting is None:
            # The preemption may be over already: the slot is this (unclaimed) claim's.
            slot = self.driver.table.claimed_by(req.claim_id)
            if slot is not None and slot.state == State.CLAIMED:
                assert slot.claim is not None
                waiting = None if slot.claim.claimed else slot
        if waiting is not None:
            return await self._claim_after_preemption(waiting, peer, req)
        slot = self.driver.claimed_slot(req.claim_id)
        return await self._take_up(slot, states.CLAIMED, peer, req)

    def _offering(self, req: ClaimSlot) -> Slot | None:
        """The slot whose offered claim id (its private ad's) the request presents."""
        slot = self.driver.table.named(req.slot) if req.slot else None
        if slot is None or not slot.offer or not isinstance(req.claim_id, str):
            return None
        return slot if secrets.compare_digest(slot.offer, req.claim_id) else None

    async def _claim_offered(self, slot: Slot, peer: Peer, req: ClaimSlot) -> Claimed:
        """A claim by the id a slot offers, the negotiator having told us nothing (as
        HTCondor's does not by default): the slot is claimed directly (5), a dynamic slot
        of `request`'s size carved first, under a claim id of its own, out of a
        partitionable one, whose offer stands for its next match."""
        self.driver.taking_work(slot)
        if slot.state not in _CLAIMABLE or slot.claim:
            raise Refused(
                Refusal.BUSY, f"{slot.name} is {slot.state}/{slot.activity}, not Unclaimed"
            )
        drained = slot.state == State.DRAINED  # let in by the drain's START
        claim_id = req.claim_id
        if slot.kind == "Partitionable":
            slot = self.driver.carve(slot, req.request or {})
            claim_id = secrets.token_hex(16)
        claim = Claim(
            id=claim_id,
            schedd=req.schedd,
            user=req.user,
            matched_at=self.driver.now(),
            while_draining=drained,
            limits=req.limits or "",
            account=req.account or "",
        )
        self.driver.table.set_claim(slot, claim)
        step = states.CLAIMED_DIRECTLY
        if slot.state == State.OWNER:  # a slot whose START takes the job: matched first
            await self.driver.take(slot, states.MATCHED)
            step = states.CLAIMED
        claimed = await self._take_up(slot, step, peer, req)
        return replace(claimed, claim_id=claim_id if claim_id != req.claim_id else "")

    async def _claim_coalesced(self, peer: Peer, req: ClaimSlot) -> Claimed:
        """condor_now's claim, made of the claims it names (`coalesce`): one dynamic slot
        for its job, carved from what theirs held."""
        if req.job is None:
            raise Refused(Refusal.BAD_REQUEST, "a coalescing claim brings its job")
        job = wire.ad_from_packed(req.job, "job ad")
        slot = coalesce.coalesce(self.driver, req.coalesce or [], job, req.schedd, req.user)
        claimed = await self._take_up(slot, states.COALESCED, peer, req)
        assert slot.claim is not None
        return replace(claimed, claim_id=slot.claim.id)

    async def _take_up(self, slot: Slot, step: Step, peer: Peer, req: ClaimSlot) -> Claimed:
        claim = slot.claim
        assert claim is not None
        if slot.state not in (State.MATCHED, State.UNCLAIMED, State.BACKFILL, State.DRAINED):
            raise Refused(Refusal.BUSY, f"{slot.name} is {slot.state}, not Matched")
        if slot.kind == "Static":
            slot.offer = ""  # spent: the slot offers another once it is free again
        claim.claimed = True
        claim.claimed_at = self.driver.now()
        claim.schedd = req.schedd or claim.schedd
        claim.client_machine = req.client_machine
        claim.limits = req.limits or claim.limits
        claim.account = req.account or claim.account
        if slot.state == State.BACKFILL:
            await self._claim_after_backfill(slot)
        else:
            await self.driver.take(slot, step)
        peer.on_close.append(lambda: self._schedd_gone(slot, claim))
        return Claimed(slot.name, self.driver.table.advertised(slot))

    def _preempting(self, claim_id: Any) -> Slot | None:
        for s in self.driver.table.all_slots():
            if s.next_claim is not None and s.next_claim.id == claim_id:
                return s
        return None

    async def _claim_after_preemption(self, slot: Slot, peer: Peer, req: ClaimSlot) -> Claimed:
        """The preempting schedd's claim: answered once the old claim's job is gone and
        the slot is this claim's (however long the old job's retirement lasts)."""
        claim = slot.next_claim if slot.next_claim is not None else slot.claim
        assert claim is not None
        claim.claimed = True  # asked for: the preemption is no longer undone (19)
        claim.claimed_at = self.driver.now()
        while slot.claim is not claim:
            if slot.next_claim is not claim:
                raise Refused(Refusal.NOT_FOUND, "the preempting match went away")
            await self.driver.next_step()
        claim.claimed_at = self.driver.now()
        claim.schedd = req.schedd or claim.schedd
        claim.client_machine = req.client_machine
        claim.limits = req.limits or claim.limits
        claim.account = req.account or claim.account
        peer.on_close.append(lambda: self._schedd_gone(slot, claim))
        log.info("%s: claimed by the preempting match", slot.name)
        return Claimed(slot.name, self.driver.table.advertised(slot))

    async def _claim_after_backfill(self, slot: Slot) -> None:
        """Claimed while its backfill client is being killed: Claimed once it is gone (31)."""
        slot.flags.pending_match, slot.flags.pending_claim = False, True
        await self.driver.settle(slot)
        with trio.move_on_after(self.driver.killing_timeout + 10):
            while slot.state != State.CLAIMED:
                await self.driver.next_step()
                await self.driver.settle(slot)
        if slot.state != State.CLAIMED:
            raise Refused(Refusal.BUSY, f"the backfill client on {slot.name} would not stop")

    def _schedd_gone(self, slot: Slot, claim: Claim) -> None:
        """The connection the claim was made on closed: the claim ends with it, its job
        (if one still runs) killed at once, as a claim whose lease lapsed."""
        if slot.claim is not claim:
            return
        log.info("%s: the schedd's connection for claim %s closed", slot.name, claim.id[:8])
        slot.flags.vacate_requested = Why.RELEASED
        slot.flags.fast = True
        self.driver.wake_up()

    async def release(self, peer: Peer, req: Release, ch: wire.Channel) -> Done:
        """The schedd gives the claim up: Preempting (10), then Owner (22)."""
        slot = self.driver.claimed_slot(req.claim_id)
        slot.flags.vacate_requested = Why.RELEASED
        await self.driver.settle(slot)
        return Done()

    async def vacate(self, peer: Peer, req: Vacate, ch: wire.Channel) -> Vacated:
        """condor_vacate: take every claimed slot's job off (gracefully, or `fast`)."""
        names = req.slots
        chosen = [s for s in self.driver.table.all_slots() if not names or s.name in names]
        for slot in chosen:
            if slot.claim is not None and slot.state in (State.CLAIMED, State.MATCHED):
                slot.flags.vacate_requested = Why.VACATE
                slot.flags.fast = req.fast
        for slot in chosen:
            await self.driver.settle(slot)
        return Vacated([s.name for s in chosen])
