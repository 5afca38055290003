"""Fetching work (manual 4.4.1-4.4.4): a slot with a FETCH_WORK hook pulls jobs from
a source outside the pool instead of waiting for the negotiator.

Each such slot has a loop of its own. It fetches when FetchWorkDelay (an expression of
the slot's ad and its running job's; 300 s when not configured) has passed since its last
fetch, and looks again every POLLING_INTERVAL or at once when the slot's fetched job
ends. What the hook prints is a job ad (old syntax); empty means no work. The startd
then decides as the seed says:

- an Unclaimed slot whose START accepts the job: a claim is made for it (transition 5)
  and the job started (11);
- a claim waiting for more fetched work (Claimed/Idle): the same claim runs it;
- a claimed slot whose RANK prefers the job to the one it runs: the claim is preempted
  and the fetched job runs on a new claim once the old job is gone (13 ... 23);
- anything else: the job is refused.

REPLY_FETCH hears `accept` or `reject`; EVICT_CLAIM hears of a fetched claim's eviction;
neither is waited for. A fetched claim whose job ended and that finds no more work is
evicted, and the slot returns to the Owner state (10, 22). The keyword used is written
into the job ad as HookKeyword, where the starter finds its own hooks.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import trio

from condorx.classad import ClassAd, ClassAdParseError, parseAds
from condorx.daemons.core import hooks
from condorx.daemons.startd import states
from condorx.daemons.startd.policy import parsed
from condorx.daemons.startd.slots import Claim, Slot
from condorx.daemons.startd.states import Activity, State, Step, Why
from condorx.daemons.startd.table import CarveError, SlotTable
from condorx.language.config import Config
from condorx.transport.protocol.run_result import RunResult
from condorx.transport.protocol.startd import RunEnded

log = logging.getLogger("condorx.startd")

DEFAULT_DELAY = "300"
# Slot states in which fetched work can be taken (at once, on the claim, or by RANK).
FETCHING = (State.UNCLAIMED, State.CLAIMED)


def slot_keyword(cfg: Config, slot: Slot) -> str | None:
    """SLOT<N>_JOB_HOOK_KEYWORD, else STARTD_JOB_HOOK_KEYWORD (a dynamic slot takes its
    partitionable parent's number)."""
    n = slot.parent.id if slot.parent is not None else slot.id
    for name in (f"SLOT{n}_JOB_HOOK_KEYWORD", "STARTD_JOB_HOOK_KEYWORD"):
        value = (cfg.get(name) or "").strip()
        if value:
            return value
    return None


class SlotHost(Protocol):
    """What the fetch loops need of their startd: its slot table (slots, views, carving,
    the policy and its clock), and the transitions it makes. (The startd's `Driver` is
    one; this module never imports it.)"""

    cfg: Config
    table: SlotTable
    polling_interval: int
    stopping: str
    nursery: trio.Nursery

    def wake_up(self) -> None: ...
    def started(self, slot: Slot) -> None: ...
    async def take(self, slot: Slot, step: Step) -> None: ...
    async def settle(self, slot: Slot) -> None: ...


# How a fetched job runs on its claim (the startd's `Runs.execute`): until it ends.
Execute = Callable[[Slot, ClassAd, dict[str, bytes] | None, Any], Awaitable[RunEnded]]
# How a hook runs (`hooks.run`; a port, for tests of the fetch loop's timing).
RunHook = Callable[..., Awaitable[hooks.Result]]


class Fetcher:
    """The FETCH_WORK loops of a startd's slots, and what comes of what they fetch."""

    def __init__(self, startd: SlotHost, execute: Execute, run_hook: RunHook = hooks.run) -> None:
        self.startd = startd
        self.execute = execute
        self.run_hook = run_hook
        cfg = startd.cfg
        self.delay_text = (cfg.get("FetchWorkDelay") or DEFAULT_DELAY).strip() or DEFAULT_DELAY
        parsed(self.delay_text)  # a bad expression is refused at start, by name below
        self.hooks: dict[str, dict[str, hooks.Hook]] = {}
        self.last: dict[str, float] = {}  # slot name -> when its last fetch ended
        self.wakers: dict[str, trio.Event] = {}

    def hooks_of(self, keyword: str) -> dict[str, hooks.Hook]:
        if keyword not in self.hooks:
            self.hooks[keyword] = hooks.configured(self.startd.cfg, keyword, hooks.STARTD_HOOKS)
        return self.hooks[keyword]

    def fetching_slots(self) -> list[tuple[Slot, str]]:
        """The slots that fetch work: FETCH_WORK must be defined for their keyword."""
        out = []
        for slot in self.startd.table.slots:
            keyword = slot_keyword(self.startd.cfg, slot)
            if keyword is not None and "FETCH_WORK" in self.hooks_of(keyword):
                out.append((slot, keyword))
        return out

    def start(self, nursery: trio.Nursery) -> None:
        for slot, keyword in self.fetching_slots():
            nursery.start_soon(self.loop, slot, keyword)
            log.info("%s fetches work with %s_HOOK_FETCH_WORK", slot.name, keyword)

    def wake(self, slot: Slot) -> None:
        """Fetch as soon as FetchWorkDelay allows (the slot's fetched job ended)."""
        root = slot.parent if slot.parent is not None else slot
        event = self.wakers.get(root.name)
        if event is not None:
            event.set()

    # -- the loop ---------------------------------------------------------------------

    def delay(self, slot: Slot) -> float:
        """FetchWorkDelay with the slot as MY and its running job (if any) as TARGET."""
        job = slot.claim.job if slot.claim is not None else None
        try:
            v = parsed(self.delay_text).eval(self.startd.table.view(slot), job)
        except ValueError:
            v = None
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 300.0

    async def loop(self, slot: Slot, keyword: str) -> None:
        while True:
            self.wakers[slot.name] = trio.Event()
            try:
                every = await self._turn(slot, keyword)
            except Exception:
                # A fetch that goes wrong must not take the startd down with it.
                log.exception("%s: fetching work failed", slot.name)
                every = float(self.startd.polling_interval)
            with trio.move_on_after(every):
                await self.wakers[slot.name].wait()

    async def _turn(self, slot: Slot, keyword: str) -> float:
        """Fetch if FetchWorkDelay allows; how long to wait before looking again."""
        every = float(self.startd.polling_interval)
        target = self._target(slot)
        if target.state not in FETCHING or target.flags.starting or self.startd.stopping:
            return every  # (a slot whose job is starting is as good as Busy)
        wait = self.last.get(slot.name, 0.0) + self.delay(target) - self.startd.table.now()
        if wait > 0:
            return min(wait, every)
        # Then wait for the next reason to fetch: the fetched job's end, or the next look
        # (a FetchWorkDelay of 0 must not spin on a busy slot).
        await self.fetch_once(target, keyword)
        self.last[slot.name] = self.startd.table.now()
        return every

    def _target(self, slot: Slot) -> Slot:
        """Where fetched work would go: the slot, or for a partitionable one a dynamic
        slot of fetched work waiting for more (else the parent, to carve anew)."""
        for child in slot.children:
            if _waits_for_work(child):
                return child
        return slot

    # -- one fetch ----------------------------------------------------------------------

    async def fetch_once(self, slot: Slot, keyword: str) -> None:
        found = self.hooks_of(keyword)
        slot_ad = self.startd.table.view(slot)
        res = await self.run_hook(found["FETCH_WORK"], (), hooks.ads_text(slot_ad))
        text = res.stdout.decode(errors="replace")
        job = None if res.error or not text.strip() else self._job(text, found, keyword, slot_ad)
        if job is None:
            self._no_more_work(slot)
            return
        job["HookKeyword"] = keyword
        # The hook may have taken a while: the slot must still be there, and the startd
        # still taking work.
        gone = slot not in self.startd.table.all_slots() or bool(self.startd.stopping)
        verdict = "reject" if gone else await self.offer(slot, job, keyword)
        if verdict == "reject":
            log.info("%s: fetched job %s refused", slot.name, _job_id(job))
        reply = found.get("REPLY_FETCH")
        if reply is not None:
            self._advise(reply, verdict, job, slot)

    def _job(
        self, text: str, found: dict[str, hooks.Hook], keyword: str, slot_ad: ClassAd
    ) -> ClassAd | None:
        """The fetched job ad; a malformed one is refused (REPLY_FETCH `reject`)."""
        try:
            ads = list(parseAds(text, "old"))
            job = ads[0] if len(ads) == 1 else None
            why = "" if job is not None else f"{len(ads)} ads where one job ad was expected"
        except (ClassAdParseError, ValueError) as e:
            job, why = None, str(e)
        if job is not None and not isinstance(job.get("Cmd"), str):
            job, why = None, "the job ad has no Cmd"
        if job is None:
            log.warning("%s_HOOK_FETCH_WORK printed a job ad that is refused: %s", keyword, why)
            reply = found.get("REPLY_FETCH")
            if reply is not None:
                raw = ClassAd()
                raw["FetchedText"] = text[:4096]
                self._advise(reply, "reject", raw, None, slot_ad)
        return job

    def _advise(
        self,
        hook: hooks.Hook,
        verdict: str,
        job: ClassAd,
        slot: Slot | None,
        slot_ad: ClassAd | None = None,
    ) -> None:
        ad = slot_ad if slot_ad is not None else self.startd.table.view(slot) if slot else ClassAd()
        self.startd.nursery.start_soon(self.run_hook, hook, (verdict,), hooks.ads_text(job, ad))

    def _no_more_work(self, slot: Slot) -> None:
        """A fetched claim whose job is done and that finds no more work is evicted."""
        if _waits_for_work(slot) and slot.state == State.CLAIMED:
            slot.flags.vacate_requested = Why.NO_WORK
            self.startd.wake_up()

    # -- the decision -------------------------------------------------------------------

    async def offer(self, slot: Slot, job: ClassAd, keyword: str) -> str:
        """Take the fetched job or refuse it; `accept` or `reject`."""
        s = self.startd
        view = s.table.view(slot)
        if slot.state == State.UNCLAIMED and s.table.policy.holds("START", view, job):
            if slot.kind == "Partitionable":
                try:
                    slot = s.table.carve(slot, _request(job))
                except CarveError as e:  # not enough left
                    log.info("fetched job refused: %s", e)
                    return "reject"
            fetched = self._claim(job, keyword)
            s.table.set_claim(slot, fetched)
            await s.take(slot, states.FETCHED)
            self.begin(slot, fetched, job)
            return "accept"
        claim = slot.claim
        if slot.state == State.CLAIMED and claim is not None:
            if _waits_for_work(slot) and slot.activity == Activity.IDLE:
                if s.table.policy.holds("START", view, job):
                    self.begin(slot, claim, job)
                    return "accept"
                return "reject"
            rank = s.table.policy.number("RANK", view, job) or 0.0
            current = claim.rank if claim.job is not None else 0.0
            # Only a claim going on as it is can be preempted for the fetched job (not
            # one already retiring or being vacated for another reason, nor one whose
            # job is starting: that is refused until it is Busy, its RANK known).
            steady = slot.activity in (Activity.IDLE, Activity.BUSY, Activity.SUSPENDED) and (
                slot.flags.retiring_for is None
                and slot.flags.vacate_requested is None
                and not slot.flags.starting
            )
            if (
                rank > current
                and steady
                and slot.next_claim is None
                and s.table.policy.holds("START", view, job)
            ):
                log.info("%s: fetched work the slot ranks higher (%g) preempts", slot.name, rank)
                nxt = self._claim(job, keyword)
                nxt.pending_job = job
                slot.next_claim = nxt
                slot.flags.vacate_requested = Why.BETTER_MATCH
                await s.settle(slot)
                return "accept"
        return "reject"

    def _claim(self, job: ClassAd, keyword: str) -> Claim:
        now = self.startd.table.now()
        owner = job.get("Owner")
        return Claim(
            id=f"fetch-{secrets.token_hex(8)}",
            schedd="",
            user=owner if isinstance(owner, str) else keyword,
            matched_at=now,
            claimed_at=now,
            claimed=True,
            fetched=keyword,
        )

    def begin(self, slot: Slot, claim: Claim, job: ClassAd) -> None:
        """Start a fetched job on its claim, now: from here until it is Busy the slot is
        as good as Busy (`Flags.starting`). HTCondor's startd spawns the starter of fetched
        work as its claim is taken and goes Busy in the same step (spawnFetchedWork), so
        a preempting match or a release always finds the job running, and retires or
        vacates it (EVICT_CLAIM then hears of it); it never finds the slot Idle and hands
        it on while the job is still to start."""
        slot.flags.starting = True
        self.startd.nursery.start_soon(self.run, slot, claim, job)

    async def run(self, slot: Slot, claim: Claim, job: ClassAd) -> None:
        """Run a fetched job on its claim (`begin`); then fetch again for the claim."""
        if slot.claim is not claim or claim.job is not None:
            if slot.claim is claim:
                self.startd.started(slot)  # no start after all: the slot is not held
            return
        try:
            reply = await self.execute(slot, job, None, None)
        except Exception:  # noqa: BLE001 - a run cut off is logged; the claim goes on
            log.exception("%s: the fetched job's run failed", slot.name)
            return
        log.info("%s: fetched job ended: %s", slot.name, RunResult.of(reply).summary())
        if slot.claim is claim:
            self.wake(slot)  # more work for the claim, as soon as FetchWorkDelay allows


def _waits_for_work(slot: Slot) -> bool:
    """A claim of fetched work with no job, and none starting: it takes the next fetched
    job (or, if there is none, is evicted)."""
    claim = slot.claim
    return (
        claim is not None and bool(claim.fetched) and claim.job is None and not slot.flags.starting
    )


def _request(job: ClassAd) -> dict[str, Any]:
    return {
        "cpus": job.get("RequestCpus"),
        "memory": job.get("RequestMemory"),
        "disk": job.get("RequestDisk"),
    }


def _job_id(job: ClassAd) -> str:
    return f"{job.get('ClusterId')}.{job.get('ProcId')}"
