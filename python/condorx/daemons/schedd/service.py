"""The schedd: answers submit/query/act/edit over the job queue, and runs periodic policy.

The queue is the ledger's (`ledger`): every handler's change goes through `change`, is
durable before it is acknowledged, and comes back as news on the ledger's stream, which
`follow_up` reads to do what a change asks of the rest of the schedd. This module wires
the schedd's parts together and answers the requests that are the queue's own
(submissions, cluster ids, exits, matches); the others are answered by the part named in
`handlers`: `actions` (rm, hold, release, suspend), `edits` (qedit), `queries` (condor_q,
the negotiator's autoclusters), `transfers` (spooled files), `route_intake` (the job
router's copies), `history_query`. The shadows, the gridmanager and the scheduler
universe (`local_jobs`) get the ledger too, not this class.
"""

from __future__ import annotations

import functools
import logging
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import trio

from condorx.client.startd import StartdClient
from condorx.daemons.core import batch
from condorx.daemons.core.accounts import accounting_name
from condorx.daemons.core.matchable import runs_here
from condorx.daemons.core.server import Handler, Peer, Server
from condorx.daemons.schedd import advertise, factory, now, transitions
from condorx.daemons.schedd.actions import Actions
from condorx.daemons.schedd.attr_rules import AttrRules
from condorx.daemons.schedd.autoclusters import Autoclusters as Groups
from condorx.daemons.schedd.choosing import Chooser, parse_id
from condorx.daemons.schedd.clock import Clock, wall
from condorx.daemons.schedd.deferral import Rules
from condorx.daemons.schedd.edits import Edits
from condorx.daemons.schedd.flock_ads import FlockAds
from condorx.daemons.schedd.flocking import Flocking
from condorx.daemons.schedd.follow_up import FollowUp
from condorx.daemons.schedd.gridmanager import GridManager
from condorx.daemons.schedd.history_query import HistoryQueries
from condorx.daemons.schedd.identity import Identity
from condorx.daemons.schedd.intake import Intake, Staged
from condorx.daemons.schedd.job_stats import JobStats
from condorx.daemons.schedd.ledger import Files, Ledger
from condorx.daemons.schedd.local_jobs import LocalJobs, is_local
from condorx.daemons.schedd.queries import Queries
from condorx.daemons.schedd.queue import JobQueue, Transaction
from condorx.daemons.schedd.route_intake import RouteIntake
from condorx.daemons.schedd.shadow import ClaimInfo, Shadows
from condorx.daemons.schedd.store import Key, Store
from condorx.daemons.schedd.transfers import Transfers
from condorx.daemons.schedd.upkeep import Upkeep
from condorx.errors import Refusal, Refused
from condorx.language import cron, history
from condorx.language.attrs import JobStatus, Universe
from condorx.language.config import Config
from condorx.transport import locate, wire
from condorx.transport.cedar import schedd as cedar_schedd
from condorx.transport.connection import Address, daemon_credentials
from condorx.transport.protocol.message import Done, Each, Message
from condorx.transport.protocol.schedd.act import Act, Edit, Reschedule, RunNow
from condorx.transport.protocol.schedd.files import Retrieve, StageIn, StageOut
from condorx.transport.protocol.schedd.peers import (
    Exited,
    ExitRecorded,
    Matched,
    MatchedMany,
    Rejected,
    Route,
)
from condorx.transport.protocol.schedd.query import (
    AggregateJobs,
    Autoclusters,
    History,
    QueryClaims,
    QueryJobs,
)
from condorx.transport.protocol.schedd.submit import (
    Reserve,
    Reserved,
    Submit,
    Submitted,
    Transact,
    Transacted,
)

log = logging.getLogger("condorx.schedd")

# The most cluster ids one Reserve hands out (each is remembered until it is used).
MAX_RESERVE = 1000


class Schedd:
    def __init__(
        self,
        cfg: Config,
        ledger: Ledger,
        me: Identity,
        shadows: Shadows,
        grid: GridManager,
        clock: Clock = wall,
    ) -> None:
        self.cfg = cfg
        self.ledger = ledger
        self.me = me
        self.shadows = shadows
        self.clock = clock
        self.super_users = cfg.get_list("QUEUE_SUPER_USERS") or ["root", "condor"]
        self.chooser = Chooser(ledger, self.super_users)
        # Clusters whose jobs are made as their turn comes; they make them inside the
        # ledger's own transactions.
        self.factories = factory.Factories(Path(locate.spool(cfg)), me.name, me.uid_domain)
        self.factories.load_all(ledger.queue.clusters)
        ledger.top_up = self.factories.top_up
        ledger.on_applied = self.factories.applied
        self.intake = Intake(cfg, ledger, me, self.factories, self.super_users, clock)
        # Scheduler-universe jobs (condor_dagman): the schedd runs them itself.
        self.local = LocalJobs(
            ledger,
            me,
            cfg.files[0] if cfg.files else None,
            per_owner=cfg.get_int("MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER", 200),
        )
        # The idle jobs grouped for the negotiators' last requests.
        self.groups = Groups()
        self.shadows.note_idle(
            [
                k
                for k, ad in ledger.snapshot()
                if ad.get("JobStatus") == JobStatus.IDLE and not is_local(ad)
            ]
        )
        root = Path(locate.spool(cfg))
        self.actions = Actions(ledger, self.chooser, shadows, self.factories, clock)
        self.edits = Edits(ledger, self.chooser, AttrRules.from_config(cfg), self.factories, clock)
        significant = cfg.get_list("SIGNIFICANT_ATTRIBUTES")
        self.queries = Queries(
            ledger, shadows, self.groups, significant, cfg.get_bool("USE_JOBSETS", False)
        )
        self.transfers = Transfers(ledger, self.chooser, root, clock)
        self.routes = RouteIntake(ledger, me, shadows, root, clock)
        self.upkeep = Upkeep(cfg, ledger, clock)
        self.flock = FlockAds(cfg, me, Flocking(cfg), self._flock_counts)
        self.stats = shadows.stats = JobStats(cfg)  # the jobs submitted, started, ...
        self.intake.submitted = lambda n: self.stats.count("JobsSubmitted", n)
        self.published = functools.partial(
            advertise.ads, ledger, me, self.flock.flocking, self.stats
        )  # the Scheduler and Submitter ads as they stand
        reschedules = advertise.Reschedules(cfg, self.published)
        self.follow_up = FollowUp(ledger, shadows, self.local, grid, reschedules)
        self.queries.offered_to = self._offered_to

    def handlers(self) -> dict[type[Message], Handler]:
        return {
            Submit: self.submit,
            Transact: self.transact,
            Reserve: self.reserve,
            Exited: self.exited,
            RunNow: self.run_now,
            Matched: self.matched,
            MatchedMany: self.matched_many,
            Rejected: self.rejected,
            Reschedule: self.reschedule,
            Act: self.actions.act,
            Edit: self.edits.edit,
            QueryJobs: self.queries.query,
            Autoclusters: self.queries.autoclusters,
            QueryClaims: self.queries.claims,
            AggregateJobs: self.queries.aggregate,
            StageIn: self.transfers.stage_in,
            StageOut: self.transfers.stage_out,
            Retrieve: self.transfers.retrieve,
            Route: self.routes.route,
            History: HistoryQueries(Path(locate.history_file(self.cfg))).history,
        }

    # -- the queue's own requests ---------------------------------------------------------

    async def submit(self, peer: Peer, req: Submit, ch: wire.Channel) -> Submitted:
        return await self.intake.submit(peer, req)

    async def transact(self, peer: Peer, req: Transact, ch: wire.Channel) -> Transacted:
        """A queue-management transaction of HTCondor's clients: its submissions and its
        edits in one queue change, all or nothing."""
        staged: list[Staged] = []
        try:
            for frame in req.submits:
                if not isinstance(frame, dict):
                    raise Refused(Refusal.BAD_REQUEST, "transact: a submission is not a map")
                earlier = sum(s.procs for s in staged)  # the limits count them together
                staged.append(await self.intake.prepare(peer, Submit.from_wire(frame), earlier))
            edits = []
            for frame in req.edits:
                if not isinstance(frame, dict):
                    raise Refused(Refusal.BAD_REQUEST, "transact: an edit is not a map")
                edits.append(self.edits.change(peer, Edit.from_wire(frame)))

            def change(txn: Transaction) -> list[int]:
                clusters = [s.stage(txn) for s in staged]
                for edit in edits:
                    _, _, denied, results = edit(txn)
                    failed = denied or [j for j, r in results.items() if r != "ok"]
                    if failed:
                        raise Refused(Refusal.PERMISSION, f"cannot edit {', '.join(failed)}")
                return clusters

            clusters = await self.ledger.change(change)
        except BaseException:
            for s in staged:
                s.undo()
            raise
        warnings: list[str] = []
        for s, cluster in zip(staged, clusters, strict=True):
            self.intake.committed(s, cluster)
            warnings += [w for w in s.warnings if w not in warnings]
        return Transacted(clusters, warnings or None)

    async def reserve(self, peer: Peer, req: Reserve, ch: wire.Channel) -> Reserved:
        """Hand out the next cluster id, or `count` of them in a row (durably, so none
        is ever given twice)."""
        count = req.count if req.count is not None else 1
        if not 1 <= count <= MAX_RESERVE:
            raise Refused(Refusal.BAD_REQUEST, f"count must be 1 to {MAX_RESERVE}, not {count}")

        def take(txn: Transaction) -> int:
            first = txn.new_cluster()
            for _ in range(count - 1):
                txn.new_cluster()
            return first

        first = await self.ledger.change(take)
        for cluster in range(first, first + count):
            self.intake.reserved[cluster] = peer.user
        return Reserved(first)

    async def exited(self, peer: Peer, req: Exited, ch: wire.Channel) -> ExitRecorded:
        """A job's process ended (the shadow's report); only the pool itself may say so."""
        key = _job_id(req.job, "exited")
        how = transitions.Exit(code=req.code, signal=req.signal)
        now = self.clock()
        outcome = await self.ledger.change(lambda txn: transitions.exited(txn, key, how, now))
        return ExitRecorded(outcome.value)

    async def run_now(self, peer: Peer, req: RunNow, ch: wire.Channel) -> Done:
        """condor_now: the now-job runs at once in the place of the vacate-jobs: on the
        one's static slot, or in a dynamic slot coalesced from theirs (`now`)."""
        job = self._now_job(peer, req.job, "now-job")
        if not req.vacate:
            raise Refused(Refusal.BAD_REQUEST, "invalid vacate-job ID list")
        ad = self.ledger.get(job)
        assert ad is not None
        if ad.get("JobStatus") != JobStatus.IDLE:
            raise Refused(Refusal.BAD_STATUS, "the now-job must be idle")
        victims: list[Key] = []  # checked in turn, as HTCondor's REASSIGN_SLOT checks them
        for text in dict.fromkeys(str(v) for v in req.vacate):
            victim = self._now_job(peer, text, "vacate-job")
            victim_ad = self.ledger.get(victim)
            if victim_ad is None or victim_ad.get("JobStatus") != JobStatus.RUNNING:
                raise Refused(Refusal.BAD_STATUS, "vacate-job must be running")
            victims.append(victim)
        if self.shadows.busy(job):
            raise Refused(
                Refusal.BAD_STATUS, "the now-job must not already be scheduled to run immediately"
            )
        slots = now.vacate_slots(self.shadows, victims)
        if now.coalesces(slots):
            timeout = self.cfg.get_float("SCHEDD_NOW_JOB_VACATE_TIMEOUT", 20.0)
            await now.run_now(self.shadows, job, victims, timeout)
            return Done()
        if not ad.symmetricMatch(slots[0]):
            raise Refused(Refusal.BAD_STATUS, "the now-job does not match the vacate-job's slot")
        await self.shadows.run_now(job, victims[0])
        return Done()

    def _now_job(self, peer: Peer, text: str, role: str) -> Key:
        """condor_now's job (its messages are HTCondor's)."""
        key, ad, mine = self.chooser.job_of(peer, text)
        if key is None:
            raise Refused(Refusal.BAD_REQUEST, f"invalid {role} ID")
        if ad is None:
            raise Refused(Refusal.NOT_FOUND, f"no such job ({role})")
        if not mine:
            raise Refused(Refusal.PERMISSION, f"you must own the {role}")
        if ad.get("JobUniverse") != Universe.VANILLA:
            where = "the now-job" if role == "now-job" else role
            raise Refused(Refusal.BAD_REQUEST, f"{where} must be in the vanilla universe")
        return key

    async def matched(self, peer: Peer, req: Matched, ch: wire.Channel) -> Done:
        """The negotiator's match of one of our jobs with a slot (and its claim id)."""
        key = _job_id(req.job, "matched")
        if req.autocluster:
            picked = self.groups.pick(key, self._waiting)
            if picked is None:
                raise Refused(Refusal.NOT_FOUND, f"no job of {req.job}'s autocluster is waiting")
            key = picked
        claim = ClaimInfo(
            id=req.claim_id,
            startd=_startd(req.startd),
            slot=req.slot,
            user=req.user,
            account=accounting_name(self.ledger.get(key)),
            limits=req.limits or "",
            fs_domain=req.fs_domain or None,
            pool=self.flock.capabilities.pool_of(peer),
            request=req.request,
        )
        self.shadows.matched(key, claim)
        return Done()

    async def matched_many(self, peer: Peer, req: MatchedMany, ch: wire.Channel) -> Each:
        """A cycle's matches of our jobs at once."""
        return Each(await batch.each(peer, req.items, Matched, self.matched, ch))

    async def rejected(self, peer: Peer, req: Rejected, ch: wire.Channel) -> Done:
        """A cycle's unmatched jobs: each job still idle here records why (HTCondor's
        schedd sets the same three attributes on the job it was told of)."""
        if not isinstance(req.items, list) or not isinstance(req.time, int):
            raise Refused(Refusal.BAD_REQUEST, "rejected: items must be a list, time a number")
        stamps = []
        for item in req.items[:100_000]:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
                raise Refused(Refusal.BAD_REQUEST, "rejected: each item is [job id, reason]")
            key = _job_id(item[0], "rejected")
            if self._waiting(key):
                stamps.append((key, item[1][:1000]))

        def stamp(txn: Transaction) -> None:
            for key, reason in stamps:
                txn.set_attr(key, "LastRejMatchReason", reason)
                txn.set_attr(key, "LastRejMatchTime", req.time)
                txn.set_attr(key, "LastRejMatchNegotiator", str(req.negotiator)[:200])

        if stamps:
            await self.ledger.change(stamp)
        if self.flock.flocking.enabled():
            self._negotiated(peer, req, [key for key, _ in stamps])
        return Done()

    # -- flocking ------------------------------------------------------------------------

    def _negotiated(self, peer: Peer, req: Rejected, rejected: list[Key]) -> None:
        """A negotiator's cycle is over for the submitters it names (all of those it may
        serve, when it names none): whom it left unsatisfied moves on (`flocking`)."""
        pool = self.flock.capabilities.pool_of(peer)
        idle, _ = self._flock_counts()
        names = req.negotiated if isinstance(req.negotiated, list) else None
        if names is None:
            offered = self._offered_to(peer)
            names = [n for n in idle if offered is None or offered(n)]
        unsatisfied = {accounting_name(self.ledger.get(key)) for key in rejected}
        pending = Counter(accounting_name(self.ledger.get(key)) for key in self.shadows.pending)
        unsatisfied.update(n for n, count in idle.items() if count > pending[n])
        self.flock.finished(pool, [str(n) for n in names], unsatisfied)

    def _flock_counts(self) -> tuple[dict[str, int], Counter[tuple[str, str]]]:
        """Idle jobs by accounting name, and running ones by name and flocked pool."""
        idle: Counter[str] = Counter()
        for (_owner, account, status), n in self.ledger.counts().items():
            if status == JobStatus.IDLE:
                idle[account] += n
        running = Counter((c.account, c.pool) for c in self.shadows.running.values() if c.pool)
        return dict(idle), running

    def _offered_to(self, peer: Peer) -> Callable[[str], bool] | None:
        """Which accounting names' jobs the peer's negotiator may have: ours, all of
        them (None); another pool's, those of submitters that reach it."""
        pool = self.flock.capabilities.pool_of(peer)
        if not pool:
            return None
        level, reach = self.flock.flocking.level_of(pool), self.flock.flocking.reach
        return lambda account: account in reach and reach[account].level >= level

    def _waiting(self, key: Key) -> bool:
        """Whether the job waits for a match: idle here, and neither matched nor running."""
        return not self.shadows.busy(key) and runs_here(self.ledger.get(key))

    async def reschedule(self, peer: Peer, req: Reschedule, ch: wire.Channel) -> Done:
        self.follow_up.reschedule()
        return Done()


@functools.lru_cache(maxsize=4096)
def _startd(text: str) -> Address:
    """A match's startd address, parsed once for the many matches of one startd (a
    simulator's 100,000 slots share one)."""
    return Address.parse(text)


def _job_id(text: str, what: str) -> Key:
    """The one job a pool daemon's report names."""
    key = parse_id(text)
    if key is None or key[1] < 0:
        raise Refused(Refusal.BAD_REQUEST, f"{what}: bad job id {text!r}")
    return key


def _cron_zone(cfg: Config) -> str | None:
    """CRON_TIME_ZONE (an IANA name), checked; None for this machine's zone."""
    name = (cfg.get("CRON_TIME_ZONE") or "").strip() or None
    if name is not None:
        try:
            cron.next_runs(cron.CronSpec(), 0, 1, name)
        except cron.CronError as e:
            log.error("CRON_TIME_ZONE: %s; using this machine's zone", e)
            return None
    return name


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    """Run a schedd until cancelled; reports its TCP address once it accepts requests."""
    me = Identity.from_config(cfg)
    deferral = Rules(zone=_cron_zone(cfg), interval=me.interval)
    files = Files(
        Path(locate.history_file(cfg)),
        history.Rotation(
            cfg.get_int("MAX_HISTORY_LOG", 20 * 1024 * 1024),
            cfg.get_int("MAX_HISTORY_ROTATIONS", 2),
        ),
        Path(locate.spool(cfg)),
    )
    ledger = Ledger(JobQueue(Store(Path(locate.job_queue_db(cfg))), deferral), files)
    async with trio.open_nursery() as nursery:
        await nursery.start(ledger.run)
        shadows = Shadows(
            ledger,
            StartdClient(
                daemon_credentials(cfg), nursery, cfg.get_int("SCHEDD_CLAIM_CONCURRENCY", 256)
            ),
            me,
            nursery,
            in_flight=cfg.get_int("SCHEDD_CLAIMS_IN_FLIGHT", 2048),
            max_running=cfg.get_int("MAX_JOBS_RUNNING", 10_000),
        )
        grid = GridManager(ledger, cfg, me.name)
        schedd = Schedd(cfg, ledger, me, shadows, grid)
        await nursery.start(schedd.follow_up.run)
        # The queue is settled before anyone may read it: orphans requeued, cron times new.
        await schedd.upkeep.requeue_orphans()
        await schedd.upkeep.recompute_cron()
        await ledger.change(schedd.factories.resume)  # their jobs, as the queue now has room
        await nursery.start(schedd.local.run)
        server = Server.for_daemon("schedd", schedd.handlers(), cfg, cedar_schedd.commands(cfg))
        me.address = ledger.address = await server.listen(
            nursery,
            cfg.get_int("SCHEDD_PORT", 0),
            unix=Path(locate.schedd_socket(cfg)),
            address_file=Path(locate.schedd_address_file(cfg)),
        )
        await nursery.start(schedd.upkeep.periodic_loop)
        await nursery.start(grid.loop)
        server.show(schedd.published)
        await nursery.start(advertise.advertiser(cfg, ledger, me, schedd.published).run)
        await nursery.start(schedd.flock.run)
        log.info("schedd %s serving %d jobs at %s", me.name, len(ledger), me.address)
        task_status.started(me.address)
