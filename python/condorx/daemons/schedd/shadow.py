"""The schedd's shadow role: it takes up the claims the negotiator made for it, runs jobs
on them one after another (a claim is reused for the next idle job of the same user that
the slot will take), and records how each job went.

One task per claim, started in the order of the matches, at most `in_flight` of them
still being taken up: a cycle's 100,000 matches wait as entries of a queue, not as
100,000 tasks that the event loop would run through before it read the negotiator's next
chunk (HTCondor's schedd likewise queues its startd contacts).

A job's `run` call to the startd stays open while the job runs: its heartbeats are the
job's lease, and a broken connection (the startd died) puts the job back to Idle at once.
What a run does to its job (started, could not start, suspended, finished, lost) is a
change through the ledger, like any other queue change.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.client.startd import Claim, StartdClient
from condorx.daemons.core import job_lease
from condorx.daemons.core.accounts import accounting_name
from condorx.daemons.core.matchable import runs_here
from condorx.daemons.schedd import transitions
from condorx.daemons.schedd.clock import Clock, wall
from condorx.daemons.schedd.identity import Identity
from condorx.daemons.schedd.job_stats import JobStats
from condorx.daemons.schedd.ledger import Ledger, LedgerClosed
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.staging import InputError, inputs, transfer_failure, write_outputs
from condorx.daemons.schedd.store import Key, job_id
from condorx.errors import Refusal, Refused
from condorx.language import cron
from condorx.language.attrs import HoldCode, JobStatus
from condorx.transport import wire
from condorx.transport.connection import Address
from condorx.transport.packed_ad import PackedAd
from condorx.transport.protocol.startd import ClaimSlot

log = logging.getLogger("condorx.shadow")

# What losing a claim's startd looks like: the run (and the claim) is over.
LOST = (OSError, wire.WireError, wire.RemoteError, trio.BrokenResourceError, trio.TooSlowError)


class Handover(Protocol):
    """Where a claim goes once its job is vacated, rather than to its next job
    (condor_now's: `condorx.daemons.schedd.now.Coalescing`)."""

    async def give(self, info: ClaimInfo) -> bool:
        """Take the free claim; True once it is gone (nothing to release)."""
        ...


@dataclass
class ClaimInfo:
    id: str
    startd: Address
    slot: str
    user: str
    # The accounting name its jobs are charged to (AccountingGroup, else Owner): the
    # claim runs only that name's jobs, as the negotiator matched it for that name.
    account: str = ""
    # The concurrency limits it was matched under (MatchedConcurrencyLimits, lowercased):
    # it runs only jobs whose limits are the same, for the negotiator counts them so
    # (HTCondor's CLAIM_RECYCLING_CONSIDER_LIMITS).
    limits: str = ""
    # The slot's FileSystemDomain (whether a job's files travel to it): the negotiator's
    # word until the slot is claimed, then its own ad's; None while it is not known.
    fs_domain: str | None = None
    # The pool of FLOCK_TO whose negotiator made the match ("" for this pool's own).
    pool: str = ""
    # The slot's ad once claimed, kept packed: read only when a job ends, to match the
    # next (100,000 claims hold 100,000 of them).
    slot_ad: PackedAd | None = None
    job: Key | None = None
    next: Key | None = None  # condor_now's job, to run on this claim before any other
    request: dict[str, Any] | None = None  # the dynamic slot to carve (a partitionable slot's)
    # condor_now's: the now-job this claim is to go to once its job is vacated; and, for
    # the now-job's claim, the claims it is made of (`condorx.daemons.schedd.now`).
    coalescing: Handover | None = None
    coalesce: list[str] | None = None

    @property
    def told_once(self) -> str | None:
        """What makes the negotiator's word of this claim one: its id, unless it is a
        partitionable slot's offer, which stands for every match of that slot."""
        return self.id if self.request is None else None


@dataclass(frozen=True)
class FirstJob:
    """The job a claim brings to its slot: its ad and input files, as sent."""

    key: Key
    ad: ClassAd
    files: dict[str, bytes] | None


class Shadows:
    def __init__(
        self,
        ledger: Ledger,
        startd: StartdClient,
        me: Identity,
        nursery: trio.Nursery,
        clock: Clock = wall,
        in_flight: int = 2048,
        max_running: int = 10_000,
    ) -> None:
        """`ledger`: the queue the runs read and change; `startd`: how claims are taken
        up; `me`: the schedd they claim for; `nursery`: where each claim's task runs;
        `clock`: the time the runs' reports stamp; `in_flight`: how many claims may be
        being taken up at once (0: no bound); `max_running`: MAX_JOBS_RUNNING, the
        most jobs running (or matched and starting) at once."""
        self.ledger = ledger
        self.clock = clock
        self.startd = startd
        self.me = me
        self.nursery = nursery
        self.claims: dict[str, ClaimInfo] = {}
        # Every claim taken up and not yet released, a partitionable slot's too (which
        # `claims` does not hold): what Schedd.get_claims lists.
        self.held: dict[int, ClaimInfo] = {}
        self.running: dict[Key, ClaimInfo] = {}
        self.idle: dict[str, collections.deque[Key]] = {}
        # Jobs matched and being claimed for, not yet started: the negotiator is not
        # offered them again (a second match would preempt the first claim).
        self.pending: set[Key] = set()
        # A reused claim takes only what the negotiator would offer: a cron job only
        # once its next run is near, not one that would sit on the slot for an hour.
        self.due = ExprTree(cron.due_clause(me.interval))
        # Matches whose claims wait their turn, and how many claims are being taken up.
        self.to_claim: collections.deque[tuple[ClaimInfo, Key]] = collections.deque()
        self.claiming = 0
        self.in_flight = in_flight
        self.max_running = max_running
        self.stats = JobStats()  # jobs started, exited, completed (the schedd's ad)

    def room(self) -> int:
        """How many more jobs may start before MAX_JOBS_RUNNING is reached."""
        return max(0, self.max_running - len(self.running) - len(self.pending))

    def busy(self, key: Key) -> bool:
        """Whether the job is taken: matched and being claimed for, or running."""
        return key in self.pending or key in self.running

    def taken(self) -> set[Key]:
        """Every job `busy` is true of, as one set (a negotiator's query masks them)."""
        return self.pending.union(self.running)

    # -- the idle jobs of each user, for reusing claims -----------------------------------

    def note_idle(self, keys: list[Key]) -> None:
        for key in keys:
            ad = self.ledger.get(key)
            if ad is not None:
                self.idle.setdefault(accounting_name(ad), collections.deque()).append(key)

    def next_job(self, claim: ClaimInfo) -> Key | None:
        """The next idle job of the claim's accounting name that its slot will take (condor_now's,
        if it still waits); never one matched to a claim still being taken up."""
        chosen, claim.next = claim.next, None
        if chosen is not None:
            # condor_now's job (rare: logged, so that a vacate's outcome can be followed).
            if runs_here(self.ledger.get(chosen)):
                log.info(
                    "claim %s on %s runs condor_now's job %d.%d", claim.id[:8], claim.slot, *chosen
                )
                return chosen
            log.info("claim %s: condor_now's job %d.%d no longer waits", claim.id[:8], *chosen)
        pending = self.idle.get(claim.account or claim.user)
        skipped = []
        found = None
        slot: ClassAd | None = None  # decoded for the first job that needs it
        while pending:
            key = pending.popleft()
            ad = self.ledger.get(key)
            # A job matched to a claim still being taken up (which brings it, or runs it
            # first) is that claim's. Taken here too, it ran twice, on two slots (at
            # 100,000 slots, 49,713 runs whose end found their job gone). That claim
            # queues it here again if it fails.
            if ad is None or not runs_here(ad) or key in self.running or key in self.pending:
                continue
            if self._due(ad):
                if slot is None:
                    slot = claim.slot_ad.ad() if claim.slot_ad is not None else ClassAd()
                if job_limits(ad, slot) == claim.limits and ad.symmetricMatch(slot):
                    found = key
                    break
            skipped.append(key)
        if pending is not None:
            pending.extendleft(reversed(skipped))
        return found

    def _due(self, ad: ClassAd) -> bool:
        # Most jobs have no DeferralTime: decided without evaluating anything.
        return ad.get("DeferralTime") is None or self.due.eval(ad) is True

    # -- claims -----------------------------------------------------------------------------

    def matched(self, job: Key, claim: ClaimInfo) -> None:
        """The negotiator matched `job` to a slot: take up the claim and start running.
        (Told twice of one claim, as a resent batch may, it takes it up once.)"""
        once = claim.told_once
        if once is not None and once in self.claims:
            return
        if self.room() <= 0:
            # As HTCondor's schedd, which takes no match once its shadows reach the limit.
            raise Refused(
                Refusal.BUSY, f"MAX_JOBS_RUNNING ({self.max_running}) reached: no more can run"
            )
        if once is not None:
            self.claims[once] = claim
        self.pending.add(job)
        self.to_claim.append((claim, job))
        self._start_claims()

    def _start_claims(self) -> None:
        """Start the waiting claims' tasks, as many as may be taken up at once."""
        while self.to_claim and (self.in_flight <= 0 or self.claiming < self.in_flight):
            claim, job = self.to_claim.popleft()
            self.claiming += 1
            self.nursery.start_soon(self.use_claim, claim, job)

    def _taken_up(self) -> None:
        """A claim is taken up (or failed to be): the next waiting one may start, unless
        the schedd is stopping (its claims' tasks are being cancelled)."""
        self.claiming -= 1
        if trio.current_effective_deadline() != float("-inf"):
            self._start_claims()

    async def use_claim(
        self, info: ClaimInfo, first: Key, taken: tuple[Claim, FirstJob] | None = None
    ) -> None:
        """Take up the negotiator's claim (or use `taken`, condor_now's, with the job it
        brought), run its jobs one after another, and release it."""
        # One connection for the claim's life: claiming (with the first job, which
        # starts at once), each job's run, the release.
        once = info.told_once if taken is None else None
        try:
            claim, job = taken if taken is not None else await self._take_up(info, first)
            async with claim:
                info.id, info.slot, info.slot_ad = claim.id, claim.slot, claim.slot_ad
                self.held[id(info)] = info
                info.fs_domain = claim.fs_domain
                key: Key | None = first
                if job is None and (not runs_here(self.ledger.get(first)) or first in self.running):
                    key = self.next_job(info)
                while key is not None:
                    sent = job if job is not None and job.key == key else None
                    job = None
                    if not await self._run(claim, info, key, sent):
                        return  # the claim is gone with its startd
                    if info.coalescing is not None:  # condor_now's, once free
                        if await info.coalescing.give(info):
                            return  # coalesced into the now-job's claim: gone
                        break
                    key = self.next_job(info)
                await claim.release()
        except LOST as e:
            log.warning("claim %s on %s lost: %s", info.id[:8], info.slot, e)
        except Exception:
            # A claim's task must never take the schedd down with it.
            log.exception("claim %s on %s failed", info.id[:8], info.slot)
        finally:
            self.held.pop(id(info), None)
            if once is not None:
                self.claims.pop(once, None)
            self.pending.discard(first)
            if first not in self.running and runs_here(self.ledger.get(first)):
                self.note_idle([first])  # never run here: another claim of its user's may
            if info.next is not None:  # condor_now's job never ran here: matchable again
                self.pending.discard(info.next)

    async def _take_up(self, info: ClaimInfo, first: Key) -> tuple[Claim, FirstJob | None]:
        """The negotiator's claim, taken up: its first job's files, then the claim."""
        try:
            job = await self.first_job(info, first)
            return await self.startd.claim(info.startd, self.claim_request(info, job)), job
        finally:
            self._taken_up()

    def claim_request(self, info: ClaimInfo, job: FirstJob | None) -> ClaimSlot:
        """The claim's request (made where it is sent: a claim's task holds no copy of
        its first job's ad while the claim lasts)."""
        return ClaimSlot(
            info.id,
            info.slot,
            info.user,
            self.me.address,
            self.me.name,
            info.request,
            job=None if job is None else wire.pack_ad(job.ad.flatten()),
            files=None if job is None else job.files,
            coalesce=info.coalesce,
            limits=info.limits or None,
            account=info.account,
        )

    async def first_job(self, info: ClaimInfo, key: Key) -> FirstJob | None:
        """The matched job, to go with the claim, when it still waits to run and whether
        its files travel is known (the negotiator named the slot's FileSystemDomain)."""
        ad = self.ledger.get(key)
        if not runs_here(ad) or key in self.running or info.fs_domain is None:
            return None
        assert ad is not None
        files = await self._inputs_or_hold(key, ad, info)
        return None if files is False else FirstJob(key, ad, files)

    # -- running one job --------------------------------------------------------------------

    async def _run(
        self, claim: Claim, info: ClaimInfo, key: Key, sent: FirstJob | None = None
    ) -> bool:
        """Run `key` on the claim (`sent`: the job the claim brought, running already);
        False when the claim is over: its startd is lost (the job is requeued) or took the
        job off and ended the claim (the job was evicted)."""
        ad = self.ledger.get(key) if sent is None else sent.ad
        if ad is None:
            return True
        info.job = key
        self.running[key] = info
        self.pending.discard(key)
        try:
            files = await self._inputs_or_hold(key, ad, info) if sent is None else sent.files
            if files is False:
                return True
            slot, host = info.slot, str(info.startd)
            await self._change(
                lambda txn: transitions.start_running(txn, key, slot, host, self.clock())
            )
            self.stats.count("JobsStarted")
            try:
                run = await claim.run(
                    ad, files, job_lease.lease(ad), lambda f: self._notice(info, f)
                )
            except LOST as e:
                log.warning("job %d.%d lost its startd %s: %s", *key, slot, e)
                why = f"lost contact with {slot}: {e}"
                await self._change(
                    lambda txn: transitions.lose_running(txn, key, why, self.clock())
                )
                return False
            # No files back (a job that left its output where it ran): no thread to start.
            failure = None
            if run.files:
                failure = await trio.to_thread.run_sync(write_outputs, ad, run.files)
            code = int(HoldCode.DOWNLOAD_FILE_ERROR)
            if run.failed and run.hold_code == code:  # an output the job did not make
                why = transfer_failure("output", True, info.slot, run.failed)
                run = run.failing(why, code, run.hold_subcode or 0)
            elif failure is not None:
                # The job ran, but its output is not where it belongs: held, to run again.
                why = transfer_failure("output", False, info.slot, failure.reason)
                run = run.failing(why, code, failure.errno)
            done = run
            self.stats.count("JobsExited")

            def finish(txn: Transaction) -> None:
                if transitions.finish_running(txn, key, done, self.clock()) == "completed":
                    self.stats.count("JobsCompleted")

            # Not waited for: the claim's next job starts in the batch that records this
            # one's end (one commit a job, not two, between one run and the next).
            self.ledger.stage(finish, self._not_recorded)
            # The startd ended the claim with the job (its policy took the job off, or
            # the claim is past its CLAIM_WORKLIFE): the claim takes no other job.
            return not run.claim_ended
        finally:
            self.running.pop(key, None)
            info.job = None

    async def _inputs_or_hold(
        self, key: Key, ad: ClassAd, info: ClaimInfo
    ) -> dict[str, bytes] | None | Literal[False]:
        """The job's input files, when they travel to this slot; False when they cannot
        be sent (a missing file), and the job is held for it."""
        if not _transfers(ad, info.fs_domain):
            return None
        try:
            return await trio.to_thread.run_sync(inputs, ad)
        except InputError as e:
            why = transfer_failure("input", False, info.slot, str(e))
            code, errno = HoldCode.UPLOAD_FILE_ERROR, e.errno
            await self._change(
                lambda txn: transitions.hold(txn, key, why, code, errno, self.clock())
            )
            return False

    async def _notice(self, info: ClaimInfo, frame: dict[str, Any]) -> None:
        """A frame of a running job: the startd's policy suspending or continuing it."""
        key = info.job
        if key is not None and ("waiting" in frame or "started" in frame):
            # Held or removed while its run was being asked for: the startd may have heard
            # the stop before it had the job, so the stop is sent again now it has it.
            ad = self.ledger.get(key)
            if ad is None or JobStatus.of(ad) in (JobStatus.HELD, JobStatus.REMOVED):
                self.nursery.start_soon(self.stop, key)
            return
        if key is None or not ("suspended" in frame or "continued" in frame):
            return
        change = transitions.suspend if "suspended" in frame else transitions.resume
        await self._change(lambda txn: change(txn, key, self.clock()))

    async def _change(self, fn: Callable[[Transaction], object]) -> None:
        """A run's report, committed; a job that left the queue meanwhile is no error."""
        try:
            await self.ledger.change(fn)
        except transitions.QueueError as e:
            self._not_recorded(e)

    def _not_recorded(self, e: BaseException) -> None:
        """Why a run's report staged without waiting (`Ledger.stage`) is not in."""
        if isinstance(e, transitions.QueueError | LedgerClosed):
            log.info("a run's report was not recorded: %s", e)
        else:
            log.error("a run's report was not recorded: %s", e)

    # -- condor_now --------------------------------------------------------------------------

    async def run_now(self, job: Key, victim: Key) -> None:
        """Run `job` next on the claim that runs `victim`, and vacate `victim` (it goes back
        to the queue): the claim's loop takes `job` as soon as the victim's run ends (one
        static slot's; dynamic slots are coalesced: `condorx.daemons.schedd.now`)."""
        claim = self.running.get(victim)
        if claim is None or claim.job != victim:
            raise transitions.QueueError(Refusal.BAD_STATUS, "vacate-job must be running")
        claim.next = job
        self.pending.add(job)  # not offered to the negotiator meanwhile
        try:
            named = f"{victim[0]}.{victim[1]}"
            await self.startd.deactivate(claim.startd, claim.id, "evict", named)
        except (OSError, wire.WireError, wire.RemoteError) as e:
            claim.next = None
            self.pending.discard(job)
            why = f"cannot vacate {victim[0]}.{victim[1]}: {e}"
            raise transitions.QueueError(Refusal.BAD_STATUS, why) from None

    # -- condor_suspend, condor_continue, condor_rm, condor_hold ------------------------------

    async def signal(self, key: Key, cmd: str) -> bool:
        """Suspend or continue a running job ("suspend" or "continue" on its startd)."""
        claim = self.running.get(key)
        if claim is None:
            return False
        try:
            if cmd == "suspend":
                await self.startd.suspend(claim.startd, claim.id)
            else:
                await self.startd.resume(claim.startd, claim.id)
            return True
        except (OSError, wire.WireError) as e:
            log.warning("cannot %s job %d.%d on %s: %s", cmd, *key, claim.slot, e)
            return False

    async def stop(self, key: Key) -> None:
        """Stop a running job (condor_rm, condor_hold): the startd kills it."""
        claim = self.running.get(key)
        if claim is None or claim.job != key:
            return
        ad = self.ledger.get(key)
        why = "hold" if ad is not None and ad.get("JobStatus") == JobStatus.HELD else "remove"
        # The job is named: by the time this arrives the claim may have moved on to the
        # next job (this one's run ended as it was held), which must go on running.
        try:
            await self.startd.deactivate(claim.startd, claim.id, why, job_id(key))
        except (OSError, wire.WireError, wire.RemoteError) as e:
            # A claim already gone (the startd ended it) has nothing left to stop.
            log.info("job %d.%d on %s not stopped: %s", *key, claim.slot, e)


def _transfers(ad: ClassAd, fs_domain: str | None) -> bool:
    """Whether the job's files travel to a slot of `fs_domain` (HTCondor's
    should_transfer_files rules)."""
    should = str(ad.get("ShouldTransferFiles") or "IF_NEEDED").upper()
    if should == "YES":
        return True
    if should == "NO":
        return False
    return ad.get("FileSystemDomain") != fs_domain or not ad.get("FileSystemDomain")


def job_limits(job: ClassAd, slot: ClassAd) -> str:
    """The job's concurrency limits on the slot, lowercased, as a claim compares them:
    its ConcurrencyLimits string, or the string its expression gives with the slot as
    TARGET ("" when it has none)."""
    value = job.get("ConcurrencyLimits")
    if value is None:
        return ""
    if not isinstance(value, str):
        value = job.eval("ConcurrencyLimits", slot)
    return value.lower() if isinstance(value, str) else ""
