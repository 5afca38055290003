"""The negotiator: every NEGOTIATOR_INTERVAL (or at once when a schedd asks, after a
submission), it gathers the pool's free slots (and the claim id each offers in its
private ad) and the schedds' idle jobs, runs the Rust negotiation cycle, and tells each
job's schedd of its match (and the slot's startd first, when it must hear of it), in
batches over connections it keeps (`handout`).

Its peers may refuse, fail or say nothing (a slot taken meanwhile, a daemon restarting):
each such failure costs a log line and that one peer's part of the cycle, never the
negotiator. A slot handed out is not offered again until its startd has advertised since
(`handed_out`).
"""

from __future__ import annotations

import logging
import math
import time
from contextlib import aclosing
from pathlib import Path
from typing import Any

import trio

from condorx import version
from condorx.classad import ClassAd
from condorx.client.collector import CollectorClient
from condorx.client.peers import Peers, checked
from condorx.client.schedd import ScheddClient
from condorx.daemons.core import daemon_stats, matchable
from condorx.daemons.core.accounts import accounting_name
from condorx.daemons.core.advertiser import Advertiser
from condorx.daemons.core.server import Handler, Peer, Server
from condorx.daemons.negotiator import offers
from condorx.daemons.negotiator.accounting import Accounting
from condorx.daemons.negotiator.cycle_stats import CycleStats
from condorx.daemons.negotiator.flocked import flocked_schedds
from condorx.daemons.negotiator.group_accounts import GroupAccounts
from condorx.daemons.negotiator.group_attrs import GroupAttrs
from condorx.daemons.negotiator.group_log import log_cycle
from condorx.daemons.negotiator.groups import read_groups
from condorx.daemons.negotiator.handed_out import HandedOut
from condorx.daemons.negotiator.handout import HandOut, Offer
from condorx.daemons.negotiator.limits import PoolLimits
from condorx.daemons.negotiator.pool_usage import PoolUsage, pool_usage
from condorx.daemons.negotiator.rejections import by_schedd, log_rejections, summary
from condorx.daemons.negotiator.resource_quotas import ResourceQuotas, stamp_caps
from condorx.language import cron
from condorx.language.config import Config
from condorx.language.negotiation import (
    Submitter,
    TimeLimits,
    negotiate,
    pool_policies,
)
from condorx.transport import locate, wire
from condorx.transport.cedar import negotiator as cedar_negotiator
from condorx.transport.connection import daemon_credentials
from condorx.transport.peer import PEER_FAILURES, why
from condorx.transport.protocol.message import Done, Message
from condorx.transport.protocol.negotiator import EditUser, GetPriorities, Priorities, Reschedule

log = logging.getLogger("condorx.negotiator")

# Jobs the negotiator leaves alone: see condorx.daemons.core.matchable.
_OURS = matchable.CONSTRAINT


def _configured(cfg: Config, name: str) -> float:
    """A spacing knob's seconds where the configuration sets it, else none."""
    return float(max(0, cfg.get_int(name, 0))) if cfg.where(name) is not None else 0.0


def _waits(schedd: Any) -> bool:
    """Whether a schedd's ad says it has jobs waiting to be matched."""
    idle = schedd.get("TotalIdleJobs")
    return isinstance(idle, int) and idle > 0


def eligible_constraint(schedd_interval: int, now: str = "time()") -> str:
    """Idle jobs that may be matched now: cron jobs only once their next run is near
    (`cron.due_clause`). (`now` is the clock's expression; tests put a fixed time there.)"""
    return f"{_OURS} && {cron.due_clause(schedd_interval, now)}"


class Negotiator:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.creds = daemon_credentials(cfg)
        self.collector = CollectorClient(cfg, self.creds)
        self.interval = max(1, cfg.get_int("NEGOTIATOR_INTERVAL", 60))
        self.timeout = max(1, cfg.get_int("NEGOTIATOR_TIMEOUT", 30))
        # HTCondor spaces its cycles (5 s from start to start, 20 s from an end to the next
        # start) so that the startds' ads catch up; condorx holds a slot handed out until
        # its startd advertises again, and spaces them only as configured.
        self.min_interval = _configured(cfg, "NEGOTIATOR_MIN_INTERVAL")
        self.cycle_delay = _configured(cfg, "NEGOTIATOR_CYCLE_DELAY")
        # A startd re-advertises at least every UPDATE_INTERVAL: a few of them without a
        # new ad for a slot handed out, and the slot is offered again all the same.
        self.handed_out = HandedOut(
            3 * max(1, cfg.get_int("UPDATE_INTERVAL", 300)),
            claim_bound=max(1, cfg.get_int("MATCH_TIMEOUT", 120)),
        )
        self.accounting = Accounting(
            Path(
                cfg.get("ACCOUNTANT_DATABASE_FILE") or Path(locate.spool(cfg)) / "Accountantnew.log"
            ),
            halflife=cfg.get_float("PRIORITY_HALFLIFE", 86400.0),
            default_factor=cfg.get_float("DEFAULT_PRIO_FACTOR", 1000.0),
        )
        self.accountant = self.accounting.accountant
        # GROUP_NAMES and its quotas; kept, for round robin remembers whom it served.
        self.groups = read_groups(cfg)
        self.domain = cfg.get("UID_DOMAIN") or cfg.get("FULL_HOSTNAME") or "localhost"
        self.group_accounts: GroupAccounts | None = None
        self.limits = PoolLimits(cfg)  # concurrency limits
        names = self.groups.core.names[1:] if self.groups.has_groups() else []
        self.resource_quotas = ResourceQuotas(cfg, names)  # condorx's GPU quotas, ...
        self.fetch_time: dict[int, float] = {}  # each submitter's schedd's answer, seconds
        # The accounting names each schedd's jobs came under this cycle, by its address.
        self.negotiated: dict[str, list[str] | None] = {}
        if self.groups.has_groups():
            self.group_accounts = GroupAccounts(self.groups, self.domain)
            self.group_accounts.prime_groups(self.accountant)
        self.wake = trio.Event()
        self.address = ""
        self.eligible = eligible_constraint(cfg.get_int("SCHEDD_INTERVAL", 300))
        # A pool of more than one negotiator shares its slots and jobs out among them
        # (HTCondor's recipe for the largest pools): each sees only the slots of its
        # NEGOTIATOR_SLOT_CONSTRAINT and the jobs of its NEGOTIATOR_JOB_CONSTRAINT.
        self.slot_constraint = cfg.get("NEGOTIATOR_SLOT_CONSTRAINT") or None
        self.max_jobs = cfg.get_int("NEGOTIATOR_MAX_JOBS_PER_SCHEDD", 10_000_000)
        job_constraint = cfg.get("NEGOTIATOR_JOB_CONSTRAINT")
        if job_constraint:
            self.eligible = f"({self.eligible}) && ({job_constraint})"
        local = (cfg.local_name or "").lower()
        self.name = cfg.get("NEGOTIATOR_NAME") or f"{local or 'negotiator'}@"
        if self.name.endswith("@"):
            self.name += locate.advertised_host("")
        self.last_cycle: dict[str, Any] = {}
        self.history = CycleStats(cfg.get_int("NEGOTIATION_CYCLE_STATS_LENGTH", 3))
        # Whether every match goes to its startd before its schedd (HTCondor's knob, off
        # by default: the startd learns of a match from the schedd's claim).
        self.inform = cfg.get_bool("NEGOTIATOR_INFORM_STARTD", False)
        self.offered: dict[str, str] = {}  # this cycle's offered claim ids, by slot name
        # Kept open from one cycle to the next to the daemons each cycle talks to.
        self.peers = Peers(self.creds, self.timeout)
        self.handout = HandOut(
            self.peers,
            limit=cfg.get_int("NEGOTIATOR_HANDOUT_CONCURRENCY", 64),
            # Each chunk waits on a schedd busy claiming the last one's slots: at 100,000
            # matches, 50 chunks of 2,000 cost about 5 s of waiting in all, 5 of 20,000
            # about 0.5 s (the schedd takes 20,000 in about half a second).
            chunk=cfg.get_int("NEGOTIATOR_HANDOUT_CHUNK", 20000),
        )

    async def reschedule(self, peer: Peer, req: Reschedule, ch: wire.Channel) -> Done:
        self.wake.set()
        return Done()

    async def get_priorities(self, peer: Peer, req: GetPriorities, ch: wire.Channel) -> Priorities:
        records = self.accounting.records()
        if self.group_accounts is not None:
            records = self.group_accounts.annotate(records)
        return Priorities(records, self.accountant.last_update(), self.limits.report() or None)

    async def edit_user(self, peer: Peer, req: EditUser, ch: wire.Channel) -> Done:
        self.accounting.edit(req.action, req.user, req.value, time.time())
        if self.group_accounts is not None and req.action == "delete":
            self.group_accounts.forget(req.user)
        log.info("condor_userprio by %s: %s %s %s", peer.user, req.action, req.user, req.value)
        return Done()

    def handlers(self) -> dict[type[Message], Handler]:
        return {
            Reschedule: self.reschedule,
            GetPriorities: self.get_priorities,
            EditUser: self.edit_user,
        }

    async def loop(self) -> None:
        started = ended = -math.inf
        while True:
            # HTCondor's spacing, when configured: no sooner than MIN_INTERVAL after the
            # last cycle began, nor CYCLE_DELAY after it ended.
            await trio.sleep_until(max(started + self.min_interval, ended + self.cycle_delay))
            started = trio.current_time()
            try:
                await self.cycle()
            except PEER_FAILURES as e:
                log.warning("negotiation cycle failed: %s", why(e))
            ended = trio.current_time()
            await self.peers.sweep()
            with trio.move_on_after(self.interval):
                await self.wake.wait()
            self.wake = trio.Event()

    async def cycle(self) -> None:
        # HTCondor's negotiator marks every cycle so (admins look for it), busy or not.
        log.info("---------- Started Negotiation Cycle ----------")
        started = time.perf_counter()
        with trio.fail_after(self.timeout):
            slots = await self.collector.query_ads("machine", self.slot_constraint)
            schedds: list[Any] = await self.collector.query_ads("scheduler")
            schedds += self._flocking_here(await flocked_schedds(self.collector, self.creds))
            self.offered = await self._offered()
        weighted = self.cfg.get_bool("NEGOTIATOR_USE_SLOT_WEIGHTS", True)
        usage = pool_usage(slots, weighted)
        held = usage.slots
        if self.group_accounts is not None:
            for name in held:
                self.group_accounts.prime(self.accountant, name)
            held = self.group_accounts.charged(held)
        self.accounting.charge(time.time(), held)
        # Owner slots too, one whose START takes the job is available (manual 3.5,
        # 3.5.8.1); Backfill slots, whose backfill work gives way to a job (3.5.8.6);
        # and Claimed ones, when a job may preempt theirs (the slot's RANK prefers it,
        # or PREEMPTION_REQUIREMENTS lets a user of better priority in). Drained ones
        # too: their START is false, unless condor_drain -start gave them one.
        consider = self.cfg.get_bool("NEGOTIATOR_CONSIDER_PREEMPTION", True)
        wanted = ("Unclaimed", "Owner", "Backfill", "Drained") + (("Claimed",) if consider else ())
        unheld = self.handed_out.unheld(slots, self.offered)
        quotas = self.resource_quotas
        self.limits.start_cycle(
            slots,
            self.handed_out.held,
            quotas.maxima(slots) if quotas else None,
            quotas.held(slots, self._group_of) if quotas else (),
        )
        # What the groups hold, as the matching counts it: a slot being taken by a
        # preempting match is the incoming submitter's already (its ad may still show
        # the old claim), so that no group takes more by preemption than its share.
        incoming = self.handed_out.incoming()
        if incoming:
            usage = pool_usage(slots, weighted, incoming)
        free = [s for s in unheld if s.get("State") in wanted]
        if not free:
            # Nothing to offer: each schedd waiting on us hears that we are done with
            # it, unsatisfied (a submitter may flock on).
            waiting = {str(sad.get("MyAddress")): None for sad in schedds if _waits(sad)}
            await self.handout.tell_rejected({}, self.name, waiting)
            return
        submitters, homes = await self._submitters(schedds, free)
        if not submitters:
            return
        if quotas:
            stamp_caps(quotas, submitters, self.groups.core.assigned)
        if self.group_accounts is not None:
            # The group facts policy expressions read (SubmitterGroupQuota, ...).
            shares = self.groups.core.quotas(usage.size)
            attrs = GroupAttrs(self.group_accounts, shares, usage.weighted)
            attrs.stamp_jobs(submitters)
            attrs.stamp_slots(free)
        gathered = time.perf_counter()
        grouped = self.groups.core if self.groups.has_groups() else None
        result = await trio.to_thread.run_sync(
            lambda: negotiate(
                free,
                submitters,
                consider_preemption=consider,
                preemption_requirements=self.cfg.get("PREEMPTION_REQUIREMENTS"),
                preemption_rank=self.cfg.get("PREEMPTION_RANK"),
                pre_job_rank=self.cfg.get("NEGOTIATOR_PRE_JOB_RANK"),
                post_job_rank=self.cfg.get("NEGOTIATOR_POST_JOB_RANK"),
                # RemoteUserPrio for PREEMPTION_REQUIREMENTS: each running user's priority.
                priorities={u: self.accountant.effective_priority(u) for u in usage.slots},
                groups=grouped,
                pool_size=usage.size,
                usage=self._submitter_usage(usage),
                limits=self.limits.core,
                time_limits=self._time_limits(homes, started),
                slot_weights=weighted,
            )
        )
        matched = time.perf_counter()
        if grouped is not None:
            log_cycle(self.groups, submitters, homes)
        log_rejections(result, homes, quotas.caps)
        offers = [
            self.offer(
                m.job,
                m.slot,
                homes[id(m.submitter)],
                m.submitter.name,
                m.dynamic_slot,
                m.preempts,
                m.limits,
            )
            for m in result.matches
        ]
        sent = await self.handout.deliver(offers)
        await self.handout.tell_rejected(
            by_schedd(result, homes, quotas.caps), self.name, self.negotiated
        )
        ended = time.perf_counter()
        self.last_cycle = {
            "seconds": ended - started,
            "matches": sent,
            "slots": len(free),
            "idle_jobs": sum(len(s.jobs) for s in submitters),
            "rejections": len(result.rejections),
            "total_slots": len(slots),
            "schedulers": len(self.negotiated),
            "submitters": len(submitters),
            # As HTCondor's LastNegotiationCyclePhase<N>Duration: what the cycle spent
            # gathering ads, matching, and handing the matches out.
            "gather": gathered - started,
            "match": matched - gathered,
            "hand_out": ended - matched,
        }
        now = time.time()
        self.history.record(self.last_cycle, now - (ended - started), now)
        log.info(
            "cycle: %(matches)d matches, %(slots)d free slots, %(idle_jobs)d idle jobs, "
            "%(seconds).3f s (gather %(gather).3f s, match %(match).3f s, "
            "hand-out %(hand_out).3f s)",
            self.last_cycle,
        )
        # How many jobs each reason left waiting (a simulated pool's and a bench's reports).
        said = summary(result, quotas.caps)
        if said:
            log.info("cycle rejections: %s", said)

    def _flocking_here(self, flocked: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The schedds of other pools flocking here, each proven to with the token it
        gave us from now on."""
        self.peers.creds_for = {f["MyAddress"]: f["creds"] for f in flocked}
        return flocked

    async def _offered(self) -> dict[str, str]:
        """Each slot's offered claim id (the Capability of its private ad), by name; none
        when NEGOTIATOR_INFORM_STARTD has every startd told of its matches."""
        if self.inform:
            return {}
        rows = await self.collector.query_rows("machineprivate", ["Name", "Capability"])
        return {r[0]: r[1] for r in rows if isinstance(r[0], str) and isinstance(r[1], str)}

    def _submitter_usage(self, usage: PoolUsage) -> dict[str, float]:
        """What each submitter (`name@UID_DOMAIN`) holds now, as the groups count it."""
        return {f"{name}@{self.domain}": used for name, used in usage.weighted.items()}

    async def _submitters(
        self, schedds: list[ClassAd], free: list[ClassAd]
    ) -> tuple[list[Submitter], dict[int, str]]:
        """Each (accounting name, schedd)'s waiting jobs, with the name's effective
        priority, and each submitter's schedd (by the submitter's id: one name may
        submit at several schedds). A schedd sends one job per autocluster with its
        count (grouped for these slots' policies); the job stands in the submitter's
        list as many times as it counts. A submitter is named `name@UID_DOMAIN`, as
        HTCondor's are: a group's name is what assigns it to its group."""
        submitters: list[Submitter] = []
        homes: dict[int, str] = {}
        self.fetch_time = {}
        self.negotiated = {}
        pool = await trio.to_thread.run_sync(pool_policies, free)
        for sad in schedds:
            address = sad.get("MyAddress")
            if not isinstance(address, str) or not _waits(sad):
                continue
            asked = time.perf_counter()
            try:
                jobs = await self._idle_jobs(address, pool)
            except PEER_FAILURES as e:
                log.warning("cannot read the idle jobs of %s: %s", sad.get("Name"), why(e))
                continue
            # What its answer took is its submitters' time, as HTCondor's negotiation
            # with a submitter includes reading its jobs (NEGOTIATOR_MAX_TIME_PER_*).
            took = (time.perf_counter() - asked) / max(1, len(jobs))
            self.negotiated[address] = sorted(jobs)
            for account, owned in jobs.items():
                if self.group_accounts is not None:
                    self.group_accounts.prime(self.accountant, account)
                prio = self.accountant.effective_priority(account)
                submitter = Submitter(f"{account}@{self.domain}", prio, owned)
                submitters.append(submitter)
                homes[id(submitter)] = address
                self.fetch_time[id(submitter)] = took
        return submitters, homes

    def _group_of(self, name: str) -> str:
        """The group an accounting name (a slot's) is charged to."""
        return self.groups.core.assigned(name if "@" in name else f"{name}@{self.domain}")

    def _time_limits(self, homes: dict[int, str], started: float) -> TimeLimits:
        """The negotiator's time limits for the matching about to begin, `started` being
        when the cycle began (on time.perf_counter)."""
        cfg = self.cfg
        cycle = cfg.get_float("NEGOTIATOR_MAX_TIME_PER_CYCLE", 1200.0)
        return TimeLimits(
            per_submitter=cfg.get_float("NEGOTIATOR_MAX_TIME_PER_SUBMITTER", 60.0),
            per_schedd=cfg.get_float("NEGOTIATOR_MAX_TIME_PER_SCHEDD", 120.0),
            per_cycle=cycle - (time.perf_counter() - started),
            per_spin=cfg.get_float("NEGOTIATOR_MAX_TIME_PER_PIESPIN", 120.0),
            schedd=homes,
            spent=self.fetch_time,
        )

    async def _idle_jobs(self, address: str, pool: list[ClassAd]) -> dict[str, list[ClassAd]]:
        """The schedd's jobs to match, by accounting name. Each chunk of its answer earns it
        NEGOTIATOR_TIMEOUT more: a long queue takes its time, a silent schedd does not."""
        checked(address)
        client = ScheddClient(self.cfg, address, self.peers.creds_for.get(address, self.creds))
        jobs: dict[str, list[ClassAd]] = {}
        total = 0
        with trio.move_on_after(self.timeout) as scope:
            async with aclosing(client.autoclusters(self.eligible, pool)) as chunks:
                async for chunk in chunks:
                    scope.deadline = trio.current_time() + self.timeout
                    for count, job in chunk:
                        total += count
                        if total > self.max_jobs:  # a schedd's word is not a blank cheque
                            raise wire.WireError(
                                f"more than NEGOTIATOR_MAX_JOBS_PER_SCHEDD ({self.max_jobs}) jobs"
                            )
                        jobs.setdefault(accounting_name(job), []).extend([job] * count)
        if scope.cancelled_caught:
            raise trio.TooSlowError(f"no answer within {self.timeout} s")
        return jobs

    def offer(
        self,
        job: ClassAd,
        slot: ClassAd,
        schedd: str,
        submitter: str,
        dynamic: ClassAd | None,
        preempts: str | None = None,
        limits: str | None = None,
    ) -> Offer:
        """One match as it is handed out (`offers.offer`); its slot is held from now on."""
        return offers.offer(
            self.handed_out,
            self.limits,
            self.offered,
            job,
            slot,
            schedd,
            submitter,
            dynamic,
            preempts,
            limits,
        )

    def ad(self) -> dict[str, Any]:
        return {
            "MyType": "Negotiator",
            "Name": self.name,
            "MyAddress": self.address,
            "NegotiatorIpAddr": self.address,
            # HTCondor's clients locate a daemon only when its ad names its host.
            "Machine": self.cfg.get("FULL_HOSTNAME") or locate.advertised_host(""),
            **version.stamp(),
            "ClassAdLifetime": self.interval * 3 + 60,
            **daemon_stats.ad(),
            **self.history.ad(),
        }


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    negotiator = Negotiator(cfg)
    handlers = negotiator.handlers()
    server = Server.for_daemon("negotiator", handlers, cfg, cedar_negotiator.commands())
    async with trio.open_nursery() as nursery:
        negotiator.address = await server.listen(
            nursery,
            cfg.get_int("NEGOTIATOR_PORT", 0),
            address_file=Path(locate.negotiator_address_file(cfg)),
        )
        server.show(lambda: [negotiator.ad()])
        advertiser = Advertiser(
            negotiator.collector,
            lambda: [negotiator.ad()],
            negotiator.interval,
            timeout=negotiator.timeout,
        )
        await nursery.start(advertiser.run)
        nursery.start_soon(negotiator.loop)
        log.info("negotiator at %s, cycle every %d s", negotiator.address, negotiator.interval)
        task_status.started(negotiator.address)
