"""condor_now: an idle job runs at once in the place of running ones (HTCondor's
REASSIGN_SLOT and its pccc.cpp).

One vacate-job on a static slot: its claim runs the now-job next (`Shadows.run_now`).
Vacate-jobs on dynamic slots (one or several): their claims are vacated and kept, not
reused, until every one is free; then the startd coalesces them into one dynamic slot
carved for the now-job, whose claim runs it (HTCondor's COALESCE_SLOTS). The vacate-jobs
go back to the queue. A claim not freed within SCHEDD_NOW_JOB_VACATE_TIMEOUT (20 s) fails
the whole: those freed are released, the rest go on as before, and the now-job waits to
be matched. The schedd's log says why, in HTCondor's words.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import trio

from condorx.classad import ClassAd
from condorx.client.startd import Claim
from condorx.daemons.core.accounts import accounting_name
from condorx.daemons.schedd import transitions
from condorx.daemons.schedd.shadow import LOST, ClaimInfo, FirstJob, Shadows, job_limits
from condorx.daemons.schedd.store import Key
from condorx.errors import Refusal
from condorx.transport import wire

log = logging.getLogger("condorx.shadow")

# How often, and how far apart, a coalescing the startd calls premature ("given slot is
# not idle": its last job's end not yet settled) is asked for again (HTCondor's).
RETRIES = 20
RETRY_AFTER = 1.0


@dataclass(eq=False)
class Coalescing:
    """One now-job's claims, as their vacate-jobs free them (HTCondor's pccc tables)."""

    job: Key
    wanted: list[ClaimInfo]
    given: list[ClaimInfo] = field(default_factory=list)
    all_given: trio.Event = field(default_factory=trio.Event)
    over: trio.Event = field(default_factory=trio.Event)
    taken: bool = False  # the startd coalesced the given claims: they are gone

    def name(self) -> str:
        return f"{self.job[0]}.{self.job[1]}"

    async def give(self, info: ClaimInfo) -> bool:
        """A wanted claim is free (its vacate-job's run is over): kept until the now-job
        is placed or has failed. True when the claim went into the now-job's (it is gone:
        nothing to release); False when it is to be released."""
        self.given.append(info)
        if len(self.given) == len(self.wanted):
            self.all_given.set()
        await self.over.wait()
        return self.taken

    async def all_free(self, timeout: float) -> bool:
        """Whether every wanted claim is free within `timeout` seconds; if not, the
        claims not yet free are let go (they run their next jobs as any claim would)."""
        with trio.move_on_after(timeout):
            await self.all_given.wait()
            return True
        why = "targeted job(s) did not vacate quickly enough, failing"
        log.warning("[now job %s]: %s", self.name(), why)
        for info in self.wanted:
            if info not in self.given:
                info.coalescing = None
        return False

    def end(self, taken: bool) -> None:
        """The now-job's placing is over; `taken`: the given claims are the startd's."""
        for info in self.wanted:
            if info.coalescing is self:
                info.coalescing = None
        self.taken = taken
        self.over.set()


def vacate_slots(shadows: Shadows, victims: list[Key]) -> list[ClassAd]:
    """The slot ad of each vacate-job's claim; QueueError unless each runs."""
    slots = []
    for victim in victims:
        claim = shadows.running.get(victim)
        if claim is None or claim.job != victim or claim.slot_ad is None:
            raise transitions.QueueError(Refusal.BAD_STATUS, "vacate-job must be running")
        slots.append(claim.slot_ad.ad())
    return slots


def coalesces(slots: list[ClassAd]) -> bool:
    """Whether the vacate-jobs' slots are coalesced (dynamic slots), rather than one
    static slot's claim reused."""
    dynamic = [s.get("SlotType") == "Dynamic" for s in slots]
    if len(slots) > 1 and not all(dynamic):
        # HTCondor would vacate them all, then fail ("given slot is not dynamic").
        raise transitions.QueueError(
            Refusal.BAD_STATUS, "the vacate-jobs must run in dynamic slots to be coalesced"
        )
    return all(dynamic)


async def run_now(shadows: Shadows, job: Key, victims: list[Key], timeout: float) -> None:
    """Vacate the victims and, once their claims are free, coalesce them for `job`."""
    infos = [shadows.running[v] for v in victims]
    if len({str(i.startd) for i in infos}) > 1:
        raise transitions.QueueError(
            Refusal.BAD_STATUS, "the vacate-jobs must run on one machine's partitionable slot"
        )
    co = Coalescing(job, infos)
    for info in infos:
        info.coalescing = co
    shadows.pending.add(job)  # not offered to the negotiator meanwhile
    shadows.nursery.start_soon(_place, shadows, co, timeout)
    for victim, info in zip(victims, infos, strict=True):
        try:
            named = f"{victim[0]}.{victim[1]}"
            await shadows.startd.deactivate(info.startd, info.id, "evict", named)
        except (OSError, wire.WireError, wire.RemoteError) as e:
            # Those vacated already come back to the queue; the rest go on running.
            log.warning("[now job %s]: cannot vacate %d.%d: %s", co.name(), *victim, e)
            co.end(False)
            shadows.pending.discard(job)
            why = f"cannot vacate {victim[0]}.{victim[1]}: {e}"
            raise transitions.QueueError(Refusal.BAD_STATUS, why) from None


async def _place(shadows: Shadows, co: Coalescing, timeout: float) -> None:
    """Once every claim is free, the now-job's claim from them; then the claim runs it
    (and goes on as any claim does)."""
    try:
        if not await co.all_free(timeout):
            co.end(False)
            return
        first = co.given[0]
        info = ClaimInfo(
            first.id,
            first.startd,
            first.slot,
            first.user,
            account=accounting_name(shadows.ledger.get(co.job)),
            limits=job_limits(shadows.ledger.get(co.job) or ClassAd(), ClassAd()),
            fs_domain=first.fs_domain,
            coalesce=[i.id for i in co.given],
        )
        taken = await _coalesced_claim(shadows, co, info)
        co.end(taken is not None)
        if taken is not None:
            await shadows.use_claim(info, co.job, taken)
    finally:
        if not co.over.is_set():
            co.end(False)
        shadows.pending.discard(co.job)


async def _coalesced_claim(
    shadows: Shadows, co: Coalescing, info: ClaimInfo
) -> tuple[Claim, FirstJob] | None:
    """The startd's coalesced claim for the now-job, which runs at once; None (logged)
    when it fails."""
    for attempt in range(RETRIES + 1):
        sent = await shadows.first_job(info, co.job)
        if sent is None:
            log.warning("[now job %s]: now job is no longer idle, failing", co.name())
            return None
        try:
            return await shadows.startd.claim(info.startd, shadows.claim_request(info, sent)), sent
        except wire.RemoteError as e:
            if e.kind != Refusal.BUSY:
                log.warning("[now job %s]: coalesce failed: %s", co.name(), e)
                return None
            if attempt == RETRIES:
                log.warning("[now job %s]: coalesce failed last retry, giving up.", co.name())
                return None
            log.info("[now job %s]: coalesce: %s; again in %g s", co.name(), e, RETRY_AFTER)
        except LOST as e:
            log.warning("[now job %s]: coalesce failed: %s", co.name(), e)
            return None
        await trio.sleep(RETRY_AFTER)
    return None
