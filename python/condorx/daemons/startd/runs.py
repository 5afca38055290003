"""Jobs on claims: a job run on a claim's starter (11; the starter spawned on the
claim's first job) and its frames relayed to the schedd's open run call (started, `alive`
heartbeats, suspended or continued by the policy) until it ends; the schedd's requests
to stop it (deactivate), suspend or continue it; condor_tail's peek at its files; and the
slots' ads with each job's pids.
"""

from __future__ import annotations

import logging
import signal
from contextlib import aclosing
from typing import Any

import trio

from condorx import record
from condorx.classad import ClassAd
from condorx.daemons.core import hooks, job_lease
from condorx.daemons.core.server import Peer
from condorx.daemons.startd import assigned, peek, runas, states
from condorx.daemons.startd.driver import Driver
from condorx.daemons.startd.policy import SlotView
from condorx.daemons.startd.slots import Slot
from condorx.daemons.startd.starter_port import Spawn, Starter
from condorx.daemons.startd.starter_process import StarterProcess
from condorx.daemons.startd.states import Activity, State, Step
from condorx.errors import Refusal, Refused
from condorx.transport import security, wire
from condorx.transport.protocol.message import Done
from condorx.transport.protocol.startd import (
    Continue,
    Deactivate,
    Deactivated,
    Peek,
    Peeked,
    QuerySlots,
    RunEnded,
    RunJob,
    SlotAds,
    Suspend,
)
from condorx.transport.protocol.starter import StartJob

log = logging.getLogger("condorx.startd")


class Runs:
    def __init__(self, driver: Driver, spawn: Spawn = StarterProcess.spawn) -> None:
        """`spawn` starts a claim's starter (a port: the simulator gives its execution
        backend, tests one that runs no process)."""
        self.driver = driver
        self.spawn = spawn
        cfg = driver.cfg
        self.starter_log = cfg.get("STARTER_LOG")
        # Each hook keyword's starter hooks, read from the configuration once.
        self.starter_hooks: dict[str, list[Any]] = {}
        self.updates = [
            cfg.get_int("STARTER_INITIAL_UPDATE_INTERVAL", 8),
            cfg.get_int("STARTER_UPDATE_INTERVAL", 300),
        ]

    async def run(self, peer: Peer, req: RunJob, ch: wire.Channel) -> RunEnded:
        slot = self.driver.claimed_slot(req.claim_id)
        claim = slot.claim
        assert claim is not None
        idle = slot.state == State.CLAIMED and slot.activity == Activity.IDLE
        if not idle or claim.job is not None or slot.flags.starting:
            raise Refused(Refusal.BUSY, f"{slot.name} is {slot.state}/{slot.activity}: no new job")
        self.driver.taking_work(slot)
        # Its scope, not its whole view: CLAIM_WORKLIFE and RANK read no more of the slot
        # than its state under the default policy (kept values, see `scope`).
        view = self.driver.table.scope(slot)
        if self.driver.worklife_over(claim, view):
            raise Refused(Refusal.BUSY, f"the claim on {slot.name} is past its CLAIM_WORKLIFE")
        if req.base is None:
            job = wire.ad_from_packed(req.job, "job ad")
            self.driver.admits_while_draining(slot, job)
            return await self.execute(slot, job, req.files, ch, view, req.job)
        job = _changed(claim.last_job, req)
        self.driver.admits_while_draining(slot, job)
        return await self.execute(slot, job, req.files, ch, view)

    async def execute(
        self,
        slot: Slot,
        job: ClassAd,
        files: dict[str, bytes] | None,
        ch: wire.Channel | None,
        view: SlotView | None = None,
        job_wire: bytes | None = None,
    ) -> RunEnded:
        """Run `job` on the slot's claim (11) until it ends; how it ended. `ch` is the
        schedd's run call, told of the job's progress (None for fetched work); `view`
        (the slot's view or scope) and `job_wire` spare work the caller did already."""
        claim = slot.claim
        assert claim is not None
        # The starter first: once the slot is Busy, a suspend or a kill must reach it.
        # Until then the slot is as good as Busy (`Flags.starting`): a preempting match
        # or a release that comes while the starter is spawned must not hand the slot
        # on under the job, which then started on another claim's slot.
        slot.flags.starting = True
        try:
            starter = await self._starter(claim.id)
        except BaseException:
            self.driver.started(slot)
            raise
        claim.job, claim.last_job, claim.job_start, claim.notify = job, job, self.driver.now(), ch
        claim.activations += 1
        claim.job_run_time = claim.job_suspend_time = 0.0
        claim.evicted = ""
        rank = self.driver.table.policy.number("RANK", view or self.driver.table.scope(slot), job)
        claim.rank = rank if rank is not None else 0.0
        slot.flags.job_running = True
        step = states.ACTIVATED_FETCHED if claim.fetched else states.ACTIVATED
        await self.driver.take(slot, step)
        self.driver.started(slot)
        try:
            wired = job_wire or wire.pack_ad(job)
            reply = await self._supervise(slot, starter, job, wired, files, ch)
        finally:
            claim.job, claim.notify = None, None
            slot.flags.job_running = False
        await self.driver.settle(slot)  # 12 (Busy to Idle), or on through Preempting
        # The claim may have ended with the job (evicted, or past CLAIM_WORKLIFE): the
        # schedd must not send it another.
        ended = slot.claim is not claim
        if claim.evicted:
            return RunEnded(vacated=claim.evicted, claim_ended=ended)
        return record.replace(reply, claim_ended=ended)

    async def _starter(self, claim_id: str) -> Starter:
        """The claim's starter, spawned on its first job."""
        starter = self.driver.starters.get(claim_id)
        if starter is None or not starter.alive:
            starter = await self.spawn(self.starter_log)
            self.driver.starters[claim_id] = starter
        return starter

    async def _supervise(
        self,
        slot: Slot,
        starter: Starter,
        job: ClassAd,
        job_wire: bytes,
        files: dict[str, bytes] | None,
        ch: wire.Channel | None,
    ) -> RunEnded:
        """Hand the job to the claim's starter and relay its frames to the schedd:
        started, heartbeats, then how the job ended."""
        assert slot.claim is not None
        request = StartJob(
            job=job_wire,
            scratch=str(self.driver.execute_dir),
            slot=slot.name,
            files=files,
            heartbeat=job_lease.heartbeat(job, self.driver.heartbeat),
            # When this startd is root, the account the job runs as.
            user=runas.account_for(self.driver.cfg, slot.name, job),
            env=self._resources_env(slot),
            **self._starter_hooks(slot, job),
        )

        async def tell(frame: dict[str, Any]) -> None:
            if ch is not None:
                await ch.send({"more": frame})

        try:
            # Closed here, at once, rather than by trio's finalizer when it is collected.
            async with aclosing(starter.run(request, job)) as frames:
                async for frame in frames:
                    if "started" in frame:
                        host = self.driver.table.machine.address
                        await tell({"started": frame["started"], "host": host})
                    elif "alive" in frame or "waiting" in frame:
                        await tell(frame)
                    elif "done" in frame:
                        return RunEnded.from_wire(frame["done"])
                    else:  # failed, missed or vacated
                        return RunEnded.from_wire(frame)
        except (wire.WireError, trio.BrokenResourceError, trio.ClosedResourceError):
            # The starter died, or the schedd did (its end of this call is gone): either
            # way the run is over; its job must not outlive it.
            starter.kill_job()
            if self.driver.starters.pop(slot.claim.id, None) is starter:
                self.driver.nursery.start_soon(starter.close)
            if slot.claim is not None and slot.claim.evicted:
                return RunEnded()  # killed by the policy: the caller reports it
            raise Refused(Refusal.STARTER, f"the run on {slot.name} was cut off") from None
        raise Refused(Refusal.STARTER, f"the starter of {slot.name} stopped answering")

    def _resources_env(self, slot: Slot) -> dict[str, str] | None:
        """The job's environment for its slot's custom resources (GPUs), if it has any."""
        if not self.driver.table.machine.resources:
            return None
        return assigned.environment(self.driver.cfg, self.driver.table.advertised(slot))

    def _starter_hooks(self, slot: Slot, job: ClassAd) -> dict[str, Any]:
        """The job's starter hooks: STARTER_JOB_HOOK_KEYWORD's, else its HookKeyword's
        (manual 4.4.3), with the slot's ad PREPARE_JOB is given."""
        keyword = (self.driver.cfg.get("STARTER_JOB_HOOK_KEYWORD") or "").strip()
        if not keyword:
            own = job.get("HookKeyword")
            keyword = own.strip() if isinstance(own, str) else ""
        if not keyword:
            return {}
        if keyword not in self.starter_hooks:
            found = hooks.configured(self.driver.cfg, keyword, hooks.STARTER_HOOKS)
            self.starter_hooks[keyword] = [h.to_wire() for h in found.values()]
        wanted = self.starter_hooks[keyword]
        if not wanted:
            return {}
        return {
            "hooks": wanted,
            "updates": self.updates,
            "slot_ad": self.driver.table.advertised(slot),
        }

    async def deactivate(self, peer: Peer, req: Deactivate, ch: wire.Channel) -> Deactivated:
        """The schedd stops its job (condor_rm, condor_hold): soft kill, hard after
        KILLING_TIMEOUT; the claim stays, and the slot goes Idle when the job is gone."""
        slot = self.driver.claimed_slot(req.claim_id)
        claim = slot.claim
        assert claim is not None
        starter = self.driver.starters.get(claim.id)
        if starter is None or claim.job is None or not _is_job(claim.job, req.job):
            return Deactivated(running=False)
        log.info("%s: the schedd deactivates the claim: stopping its job", slot.name)
        why = req.why if req.why in ("hold", "remove") else "evict"
        if why == "evict":
            # The job is vacated, not ended (condor_now gives its slot to another job): it
            # goes back to its queue, and the claim stays for the schedd's next job.
            claim.evicted = claim.evicted or "the schedd vacated the job"
        stopping = claim.job  # the job this asks to stop, not whichever the claim runs later
        await starter.send_signal(signal.SIGTERM, why)
        if claim.job is stopping:
            await starter.send_signal(signal.SIGCONT)

        async def hard_kill() -> None:
            await trio.sleep(self.driver.killing_timeout)
            # condor_now: the vacated job gone, the claim runs the now-job; this timer
            # must not kill it (it did, KILLING_TIMEOUT after the vacate).
            if slot.claim is claim and claim.job is stopping:
                await starter.send_signal(signal.SIGKILL)

        self.driver.nursery.start_soon(hard_kill)
        return Deactivated(running=True)

    async def suspend(self, peer: Peer, req: Suspend, ch: wire.Channel) -> Done:
        """condor_suspend: stop the claim's job where it is (SIGSTOP to its process tree)."""
        return await self._pause(req.claim_id, states.USER_SUSPENDED)

    async def resume(self, peer: Peer, req: Continue, ch: wire.Channel) -> Done:
        """condor_continue: let a suspended job go on (SIGCONT to its process tree)."""
        return await self._pause(req.claim_id, states.USER_CONTINUED)

    async def _pause(self, claim_id: str, step: Step) -> Done:
        slot = self.driver.claimed_slot(claim_id)
        assert slot.claim is not None
        if slot.claim.job is None or slot.claim.id not in self.driver.starters:
            raise Refused(Refusal.NOT_FOUND, f"no job is running on {slot.name}")
        sig = signal.SIGSTOP if step.activity == Activity.SUSPENDED else signal.SIGCONT
        await self.driver.signal(slot, sig)
        if slot.state == State.CLAIMED and slot.activity != step.activity:
            await self.driver.take(slot, step)
        # A job the user suspended stays suspended until condor_continue: CONTINUE only
        # undoes what SUSPEND did.
        slot.flags.user_suspended = (
            step.activity == Activity.SUSPENDED and slot.activity == Activity.SUSPENDED
        )
        return Done()

    async def query_slots(self, peer: Peer, req: QuerySlots, ch: wire.Channel) -> SlotAds:
        ads = self.driver.table.ads()
        for slot, ad in zip(self.driver.table.all_slots(), ads, strict=True):
            starter = self.driver.starters.get(slot.claim.id) if slot.claim is not None else None
            if starter is not None:
                if starter.pid is not None:
                    ad["StarterPid"] = starter.pid
                if starter.job_pid is not None:
                    ad["JobPid"] = starter.job_pid
        return SlotAds(wire.pack_ads(ads))

    async def peek(self, peer: Peer, req: Peek, ch: wire.Channel) -> Peeked:
        """condor_tail: the running job's files, read for its owner."""
        slot = next(
            (
                s
                for s in self.driver.table.all_slots()
                if s.claim and s.claim.job and _is_job(s.claim.job, req.job)
            ),
            None,
        )
        starter = self.driver.starters.get(slot.claim.id) if slot and slot.claim else None
        if slot is None or slot.claim is None or slot.claim.job is None or starter is None:
            raise Refused(Refusal.NOT_FOUND, f"job {req.job} is not running here")
        if peer.user != slot.claim.user and not security.is_admin(peer.user):
            raise Refused(
                Refusal.PERMISSION,
                f"{peer.user} is not authorized for access to the starter for job {req.job}",
            )
        names = [str(n) for n in req.files or []] or (
            ["stdout"] * req.stdout + ["stderr"] * req.stderr
        )
        account = runas.account_for(self.driver.cfg, slot.name, slot.claim.job)
        offsets = req.offsets or {}
        limit = max(1, min(req.max_bytes, 1 << 20))
        data: dict[str, Any] = {}
        sizes: dict[str, Any] = {}
        for name in names:
            path = peek.resolve(starter.places, name)
            offset = offsets.get(name)
            got, size = await trio.to_thread.run_sync(
                peek.read, path, offset if isinstance(offset, int) else None, limit, account
            )
            data[name], sizes[name] = got, size
        return Peeked(data, sizes)


def _changed(last: ClassAd | None, req: RunJob) -> ClassAd:
    """The job a run names by its changes to the claim's last job."""
    if last is None or req.base != f"{last.get('ClusterId')}.{last.get('ProcId')}":
        raise Refused(Refusal.BAD_REQUEST, f"no job {req.base} on this claim to change")
    job = last.copy()
    job.update(wire.ad_from_packed(req.job, "job ad changes"))
    for name in req.removed or ():
        if isinstance(name, str):
            job.pop(name, None)
    return job


def _is_job(job: ClassAd, named: Any) -> bool:
    """Whether the claim's job is the one a request names (None names whichever runs)."""
    return named is None or named == f"{job.get('ClusterId')}.{job.get('ProcId')}"
