"""The schedd's shadow role: it takes up the claims the negotiator made for it, runs jobs
on them one after another (a claim is reused for the next idle job of the same user that
the slot will take), and records how each job went.

One task per claim. A job's `run` call to the startd stays open while the job runs: its
heartbeats are the job's lease, and a broken connection (the startd died) puts the job
back to Idle at once.
"""

from __future__ import annotations

import collections
import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from condorx import cron, wire
from condorx.attrs import HoldCode, JobStatus
from condorx.classad import ClassAd, ExprTree
from condorx.client.connection import Address, Credentials, connect
from condorx.config import Config
from condorx.daemons.matchable import runs_here
from condorx.daemons.schedd.queue import JobQueue
from condorx.daemons.schedd.staging import inputs, write_outputs
from condorx.daemons.schedd.store import Key

log = logging.getLogger("condorx.shadow")


@dataclass
class ClaimInfo:
    id: str
    startd: Address
    slot: str
    user: str
    slot_ad: ClassAd = field(default_factory=ClassAd)
    job: Key | None = None


class ShadowHost(Protocol):
    """What the shadows need of their schedd: its identity and settings, its queue to
    read, and the reports that change a job (each a committed queue change)."""

    cfg: Config
    name: str
    address: str
    queue: JobQueue

    async def started(self, key: Key, slot: str, startd: Address) -> None: ...
    async def cannot_start(self, key: Key, why: str) -> None: ...
    async def paused(self, key: Key, suspended: bool) -> None: ...
    async def finished(self, key: Key, reply: dict[str, Any]) -> None: ...
    async def lost(self, key: Key, why: str) -> None: ...


class Shadows:
    def __init__(self, schedd: ShadowHost, creds: Credentials) -> None:
        self.schedd = schedd
        self.creds = creds
        self.claims: dict[str, ClaimInfo] = {}
        self.running: dict[Key, ClaimInfo] = {}
        self.idle: dict[str, collections.deque[Key]] = {}
        self.nursery: trio.Nursery | None = None
        # Jobs matched and being claimed for, not yet started: the negotiator is not
        # offered them again (a second match would preempt the first claim).
        self.pending: set[Key] = set()
        # A reused claim takes only what the negotiator would offer: a cron job only
        # once its next run is near, not one that would sit on the slot for an hour.
        self.due = ExprTree(cron.due_clause(schedd.cfg.get_int("SCHEDD_INTERVAL", 300)))

    # -- the idle jobs of each user, for reusing claims -----------------------------------

    def note_idle(self, keys: list[Key]) -> None:
        for key in keys:
            ad = self.schedd.queue.get(key)
            if ad is not None:
                self.idle.setdefault(str(ad.get("Owner")), collections.deque()).append(key)

    def _next_job(self, claim: ClaimInfo) -> Key | None:
        """The next idle job of the claim's user that its slot will take."""
        pending = self.idle.get(claim.user)
        skipped = []
        found = None
        while pending:
            key = pending.popleft()
            ad = self.schedd.queue.get(key)
            if ad is None or not runs_here(ad) or key in self.running:
                continue
            if self._due(ad) and ad.symmetricMatch(claim.slot_ad):
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
        """The negotiator matched `job` to a slot: take up the claim and start running."""
        assert self.nursery is not None
        self.claims[claim.id] = claim
        self.pending.add(job)
        self.nursery.start_soon(self._use_claim, claim, job)

    async def _use_claim(self, claim: ClaimInfo, first: Key) -> None:
        # One connection for the claim's life: claiming, each job's run, the release.
        try:
            ch = await connect(claim.startd, self.creds)
        except (OSError, wire.WireError) as e:
            log.warning("cannot reach %s for claim %s: %s", claim.slot, claim.id[:8], e)
            self.claims.pop(claim.id, None)
            self.pending.discard(first)
            return
        try:
            reply = await ch.request(
                {
                    "cmd": "claim",
                    "claim_id": claim.id,
                    "slot": claim.slot,
                    "user": claim.user,
                    "schedd": self.schedd.address,
                    "client_machine": self.schedd.name,
                }
            )
            claim.slot_ad = wire.ad_from_wire(reply.get("ad") or {}, "slot ad")
            key: Key | None = first
            ad = self.schedd.queue.get(first)
            if not runs_here(ad) or first in self.running:
                key = self._next_job(claim)
            while key is not None:
                if not await self._run(ch, claim, key):
                    return  # the claim is gone with its startd
                key = self._next_job(claim)
            await ch.request({"cmd": "release", "claim_id": claim.id})
        except (OSError, wire.WireError, wire.RemoteError, trio.BrokenResourceError) as e:
            log.warning("claim %s on %s lost: %s", claim.id[:8], claim.slot, e)
        except Exception:
            # A claim's task must never take the schedd down with it.
            log.exception("claim %s on %s failed", claim.id[:8], claim.slot)
        finally:
            self.claims.pop(claim.id, None)
            self.pending.discard(first)
            await ch.aclose()

    async def _call(self, claim: ClaimInfo, req: dict[str, Any]) -> dict[str, Any]:
        ch = await connect(claim.startd, self.creds)
        try:
            return await ch.request(req)
        finally:
            await ch.aclose()

    # -- running one job --------------------------------------------------------------------

    async def _run(self, ch: wire.Channel, claim: ClaimInfo, key: Key) -> bool:
        """Run `key` on the claim; False when the claim is over: its startd is lost (the job
        is requeued) or took the job off and ended the claim (the job was evicted)."""
        ad = self.schedd.queue.get(key)
        if ad is None:
            return True
        claim.job = key
        self.running[key] = claim
        self.pending.discard(key)
        try:
            try:
                if _transfers(ad, claim.slot_ad):
                    files = await trio.to_thread.run_sync(inputs, ad)
                else:
                    files = None
            except wire.WireError as e:
                await self.schedd.cannot_start(key, str(e))
                return True
            await self.schedd.started(key, claim.slot, claim.startd)
            try:
                reply = await self._run_on_startd(ch, claim, ad, files)
            except (
                OSError,
                wire.WireError,
                wire.RemoteError,
                trio.BrokenResourceError,
                trio.TooSlowError,
            ) as e:
                # RemoteError is a WireError's sibling: both mean the run is lost.
                log.warning("job %d.%d lost its startd %s: %s", *key, claim.slot, e)
                await self.schedd.lost(key, f"lost contact with {claim.slot}: {e}")
                return False
            failure = await trio.to_thread.run_sync(write_outputs, ad, reply.get("files") or {})
            if failure is not None:
                # The job ran, but its output is not where it belongs: held, to run again.
                code = int(HoldCode.DOWNLOAD_FILE_ERROR)
                reply = {**reply, "failed": failure.reason, "hold_code": code}
                reply["hold_subcode"] = failure.errno
            await self.schedd.finished(key, reply)
            # The startd ended the claim with the job (its policy took the job off, or
            # the claim is past its CLAIM_WORKLIFE): the claim takes no other job.
            return not reply.get("claim_ended")
        finally:
            self.running.pop(key, None)
            claim.job = None

    async def _run_on_startd(
        self, ch: wire.Channel, claim: ClaimInfo, ad: ClassAd, files: dict[str, bytes] | None
    ) -> dict[str, Any]:
        lease = ad.get("JobLeaseDuration")
        lease = lease if isinstance(lease, int) and lease > 0 else 2400
        job = wire.ad_to_wire(ad.flatten())
        await ch.send({"cmd": "run", "claim_id": claim.id, "job": job, "files": files})
        while True:
            with trio.fail_after(lease):
                reply = await ch.receive()
            if isinstance(reply, dict) and "more" in reply:
                await self._notice(claim, reply["more"])
                continue
            return wire.check(reply)

    async def _notice(self, claim: ClaimInfo, frame: Any) -> None:
        """A frame of a running job: the startd's policy suspending or continuing it."""
        if claim.job is None or not isinstance(frame, dict):
            return
        if "suspended" in frame or "continued" in frame:
            await self.schedd.paused(claim.job, "suspended" in frame)

    async def signal(self, key: Key, cmd: str) -> bool:
        """Suspend or continue a running job ("suspend" or "continue" on its startd)."""
        claim = self.running.get(key)
        if claim is None:
            return False
        try:
            await self._call(claim, {"cmd": cmd, "claim_id": claim.id})
            return True
        except (OSError, wire.WireError) as e:
            log.warning("cannot %s job %d.%d on %s: %s", cmd, *key, claim.slot, e)
            return False

    async def stop(self, key: Key) -> None:
        """Stop a running job (condor_rm, condor_hold): the startd kills it."""
        claim = self.running.get(key)
        if claim is None or claim.job != key:
            return
        ad = self.schedd.queue.get(key)
        why = "hold" if ad is not None and ad.get("JobStatus") == JobStatus.HELD else "remove"
        # The job is named: by the time this arrives the claim may have moved on to the
        # next job (this one's run ended as it was held), which must go on running.
        req = {"cmd": "deactivate", "claim_id": claim.id, "why": why, "job": f"{key[0]}.{key[1]}"}
        try:
            await self._call(claim, req)
        except (OSError, wire.WireError, wire.RemoteError) as e:
            # A claim already gone (the startd ended it) has nothing left to stop.
            log.info("job %d.%d on %s not stopped: %s", *key, claim.slot, e)


def _transfers(ad: ClassAd, slot: ClassAd) -> bool:
    """Whether the job's files travel (HTCondor's should_transfer_files rules)."""
    should = str(ad.get("ShouldTransferFiles") or "IF_NEEDED").upper()
    if should == "YES":
        return True
    if should == "NO":
        return False
    return ad.get("FileSystemDomain") != slot.get("FileSystemDomain") or not ad.get(
        "FileSystemDomain"
    )
