"""The schedd: answers submit/query/act/edit over the job queue, and runs periodic policy.

The queue is the ledger's (`ledger`): every handler's change goes through `change`, is
durable before it is acknowledged, and comes back as news on the ledger's stream, which
`follow_up` reads to do what a change asks of the rest of the schedd (offer new idle jobs
to claims, ask for a negotiation cycle, stop runs, wake the gridmanager). The shadows and
the gridmanager get the ledger too, not this class.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import trio

from condorx import cron, locate, security, wire
from condorx._core import eval_against
from condorx.attrs import JobStatus, Universe
from condorx.cedar import schedd as cedar_schedd
from condorx.classad import ClassAd, ExprTree, parseAds
from condorx.client.connection import Address, daemon_credentials
from condorx.client.startd import StartdClient
from condorx.config import Config
from condorx.daemons import batch, query
from condorx.daemons.matchable import runs_here
from condorx.daemons.schedd import (
    advertise,
    deferral,
    factory,
    history,
    policy,
    routing,
    spool,
    stage,
    transitions,
)
from condorx.daemons.schedd.attr_rules import AttrRules
from condorx.daemons.schedd.autoclusters import Autoclusters as Groups
from condorx.daemons.schedd.committed import Committed
from condorx.daemons.schedd.gridmanager import GridManager
from condorx.daemons.schedd.history_query import HistoryQueries
from condorx.daemons.schedd.identity import Identity
from condorx.daemons.schedd.intake import Intake, Staged
from condorx.daemons.schedd.ledger import Files, Ledger
from condorx.daemons.schedd.local_jobs import LocalJobs, is_local
from condorx.daemons.schedd.queue import JobQueue, Transaction
from condorx.daemons.schedd.shadow import ClaimInfo, Shadows
from condorx.daemons.schedd.store import Key, Store
from condorx.daemons.schedd.submission import Submission
from condorx.daemons.server import Handler, Peer, Server
from condorx.errors import ClassAdParseError, Refused
from condorx.protocol.message import Count, Done, Each, Message
from condorx.protocol.schedd import (
    Act,
    Acted,
    Autoclusters,
    Edit,
    Exited,
    ExitRecorded,
    History,
    JobIds,
    Matched,
    MatchedMany,
    Output,
    QueryJobs,
    Reschedule,
    Reserve,
    Reserved,
    Retrieve,
    Route,
    Routed,
    RunNow,
    StageIn,
    StageOut,
    Submit,
    Submitted,
    Transact,
    Transacted,
)

log = logging.getLogger("condorx.schedd")

CHUNK = 10_000
# The most cluster ids one Reserve hands out (each is remembered until it is used).
MAX_RESERVE = 1000
ACTIONS = ("remove", "remove-x", "hold", "release", "suspend", "continue")


class Schedd:
    def __init__(
        self, cfg: Config, ledger: Ledger, me: Identity, shadows: Shadows, grid: GridManager
    ) -> None:
        self.cfg = cfg
        self._aside: trio.Nursery | None = None  # where background requests run
        self.reschedules = advertise.Reschedules(cfg, ledger, me)
        self.ledger = ledger
        self.me = me
        self.shadows = shadows
        self.grid = grid
        self.super_users = cfg.get_list("QUEUE_SUPER_USERS") or ["root", "condor"]
        self.attr_rules = AttrRules.from_config(cfg)
        # Clusters whose jobs are made as their turn comes; they make them inside the
        # ledger's own transactions.
        self.factories = factory.Factories(locate.spool(cfg), me.name, me.uid_domain)
        self.factories.load_all(ledger.queue.clusters)
        ledger.top_up = self.factories.top_up
        ledger.on_applied = self.factories.applied
        self.intake = Intake(cfg, ledger, me, self.factories, self.super_users)
        # Scheduler-universe jobs (condor_dagman): the schedd runs them itself.
        self.local = LocalJobs(ledger, me, cfg.files[0] if cfg.files else None)
        # The idle jobs grouped for the negotiators' last requests.
        self.clusters = Groups()
        self.shadows.note_idle(
            [
                k
                for k, ad in ledger.snapshot()
                if ad.get("JobStatus") == JobStatus.IDLE and not is_local(ad)
            ]
        )
        # Jobs that were running when the schedd stopped ran on claims it no longer holds.
        # (An original tied to a routed copy only mirrors its copy's Running.)
        self._orphans = [
            k
            for k, ad in ledger.snapshot()
            if ad.get("JobStatus") == JobStatus.RUNNING
            and not routing.is_managed(ad)
            and ad.get("JobUniverse") != Universe.GRID  # another pool runs it
        ]

    # -- handlers -------------------------------------------------------------------------

    async def submit(self, peer: Peer, req: Submit, ch: wire.Channel) -> Submitted:
        staged = await self.intake.prepare(peer, req)
        try:
            cluster = await self.ledger.change(staged.stage)
        except BaseException:
            staged.undo()
            raise
        self.intake.committed(staged, cluster)
        return Submitted(cluster, staged.procs)

    async def transact(self, peer: Peer, req: Transact, ch: wire.Channel) -> Transacted:
        """A queue-management transaction of HTCondor's clients: its submissions and its
        edits in one queue change, all or nothing."""
        staged: list[Staged] = []
        try:
            for frame in req.submits:
                if not isinstance(frame, dict):
                    raise Refused("bad-request", "transact: a submission is not a map")
                staged.append(await self.intake.prepare(peer, Submit.from_wire(frame)))
            edits = []
            for frame in req.edits:
                if not isinstance(frame, dict):
                    raise Refused("bad-request", "transact: an edit is not a map")
                edits.append(self._edit_change(peer, Edit.from_wire(frame), _now()))

            def change(txn: Transaction) -> list[int]:
                clusters = [s.stage(txn) for s in staged]
                for edit in edits:
                    _, _, denied, results = edit(txn)
                    failed = denied or [j for j, r in results.items() if r != "ok"]
                    if failed:
                        raise Refused("permission", f"cannot edit {', '.join(failed)}")
                return clusters

            clusters = await self.ledger.change(change)
        except BaseException:
            for s in staged:
                s.undo()
            raise
        for s, cluster in zip(staged, clusters, strict=True):
            self.intake.committed(s, cluster)
        return Transacted(clusters)

    async def retrieve(self, peer: Peer, req: Retrieve, ch: wire.Channel) -> Output:
        """A spooled job's output (condor_transfer_data): its owner's to fetch."""
        key = _parse_id(req.job)
        if key is None or key[1] < 0:
            raise Refused("bad-request", f"retrieve: bad job id {req.job!r}")
        ad = self.ledger.get(key)
        if ad is None:
            raise Refused("not-found", f"job {key[0]}.{key[1]} not found")
        if not security.may_act_on(peer.user, str(ad.get("Owner")), self.super_users):
            raise Refused("permission", f"{peer.user} may not fetch job {key[0]}.{key[1]}")
        root = locate.spool(self.cfg)
        take = spool.output_files if req.names == "spool" else spool.outputs
        files = await trio.to_thread.run_sync(take, root, key, ad)
        return Output(files)

    async def stage_in(self, peer: Peer, req: StageIn, ch: wire.Channel) -> Done:
        """HTCondor's clients' input files for jobs queued without them: first whether
        the jobs may take them, then each job's files, kept and the job released."""
        keys = [self._own_job(peer, str(j), "spool files for") for j in req.jobs]
        now = _now()
        if req.files is None:

            def check(txn: Transaction) -> None:
                for key in keys:
                    stage.check_stage_in(txn, key)
                    txn.set_attr(key, "StageInStart", now)

            await self.ledger.change(check)
            return Done()
        if len(req.files) != len(keys) or not all(isinstance(f, dict) for f in req.files):
            raise Refused("bad-request", "stage_in: one map of files per job")
        root = locate.spool(self.cfg)
        for key, files in zip(keys, req.files, strict=True):
            try:
                spool.check_names(files, f"job {key[0]}.{key[1]}")
            except spool.SpoolError as e:
                raise Refused("bad-request", str(e)) from None
            if not all(isinstance(v, bytes) for v in files.values()):
                raise Refused("bad-request", "stage_in: a file's content is not bytes")
            job = self.ledger.get(key)
            owner = str(job.get("Owner")) if job is not None else None
            try:
                await trio.to_thread.run_sync(spool.write, spool.job_dir(root, key), files, owner)
            except OSError as e:
                raise Refused("spool", f"cannot keep the input files: {e}") from None

        def release(txn: Transaction) -> None:
            for key in keys:
                stage.staged_in(txn, key, now)

        await self.ledger.change(release)
        return Done()

    async def stage_out(self, peer: Peer, req: StageOut, ch: wire.Channel) -> JobIds:
        """A retrieval of the peer's spooled jobs' output begins (the jobs `constraint`
        picks) or is over (`done`, the jobs named)."""
        now = _now()
        if req.done:
            keys = [self._own_job(peer, str(j), "retrieve") for j in req.jobs or []]
        else:
            chosen = _select(self.ledger.snapshot(), req.constraint or "true")
            keys = [
                k
                for k, ad in chosen
                if security.may_act_on(peer.user, str(ad.get("Owner")), self.super_users)
            ]

        def mark(txn: Transaction) -> None:
            for key in keys:
                stage.stage_out(txn, key, now, bool(req.done))

        if keys:
            await self.ledger.change(mark)
        return JobIds([f"{c}.{p}" for c, p in keys])

    def _job_of(self, peer: Peer, text: str) -> tuple[Key | None, ClassAd | None, bool]:
        """The job `text` names (None: not a job id), its ad (None: not here), and
        whether the peer may act on it (its owner, or a queue super user)."""
        key = _parse_id(text)
        if key is None or key[1] < 0:
            return None, None, False
        ad = self.ledger.get(key)
        owner = str(ad.get("Owner")) if ad is not None else ""
        return key, ad, ad is not None and security.may_act_on(peer.user, owner, self.super_users)

    def _own_job(self, peer: Peer, text: str, what: str) -> Key:
        """The job a request names, which must be the peer's (or a queue super user's)."""
        key, ad, mine = self._job_of(peer, text)
        if key is None:
            raise Refused("bad-request", f"bad job id {text!r}")
        if ad is None:
            raise Refused("not-found", f"job {key[0]}.{key[1]} not found")
        if not mine:
            raise Refused("permission", f"{peer.user} may not {what} job {key[0]}.{key[1]}")
        return key

    async def run_now(self, peer: Peer, req: RunNow, ch: wire.Channel) -> Done:
        """condor_now: the now-job runs at once on the vacate-job's slot (HTCondor's
        reassign_slot, for one vacate-job: condorx does not join several slots into one)."""
        job = self._now_job(peer, req.job, "now-job")
        if len(req.vacate) != 1:
            raise Refused("bad-request", "condorx runs the now-job in the place of one vacate-job")
        victim = self._now_job(peer, str(req.vacate[0]), "vacate-job")
        ad, victim_ad = self.ledger.get(job), self.ledger.get(victim)
        assert ad is not None and victim_ad is not None
        if ad.get("JobStatus") != JobStatus.IDLE:
            raise Refused("bad-status", "the now-job must be idle")
        if self.shadows.busy(job):
            raise Refused(
                "bad-status", "the now-job must not already be scheduled to run immediately"
            )
        slot = self.shadows.slot_of(victim)
        if victim_ad.get("JobStatus") != JobStatus.RUNNING or slot is None:
            raise Refused("bad-status", "vacate-job must be running")
        if not ad.symmetricMatch(slot):
            raise Refused("bad-status", "the now-job does not match the vacate-job's slot")
        await self.shadows.run_now(job, victim)
        return Done()

    def _now_job(self, peer: Peer, text: str, role: str) -> Key:
        """condor_now's job (its messages are HTCondor's)."""
        key, ad, mine = self._job_of(peer, text)
        if key is None:
            raise Refused("bad-request", f"invalid {role} ID")
        if ad is None:
            raise Refused("not-found", f"no such job ({role})")
        if not mine:
            raise Refused("permission", f"you must own the {role}")
        if ad.get("JobUniverse") != Universe.VANILLA:
            where = "the now-job" if role == "now-job" else role
            raise Refused("bad-request", f"{where} must be in the vanilla universe")
        return key

    async def route(self, peer: Peer, req: Route, ch: wire.Channel) -> Routed:
        """The job router's routed copies of idle jobs: `routes` lists (job, copy's
        attributes, route name); each copy (a new job of the original's owner) and its
        tie to the original are made in one transaction (see `routing`). Each result is
        `{"copy": id}` or `{"error": why}` (the job is gone, or no longer idle)."""
        items = req.routes
        owners = {
            str(item.get("job")): ad.get("Owner")
            for item in items
            if isinstance(item, dict)
            and (key := routing.parse_id(item.get("job"))) is not None
            and (ad := self.ledger.get(key)) is not None
        }
        sandboxes = await trio.to_thread.run_sync(_gather_sandboxes, items, owners)
        # A sandboxed copy's files are in its spool directory before the copy is in the
        # queue: its cluster id comes first, and the directory is written before the copy.
        wanted = sum(isinstance(box, tuple) for box in sandboxes)
        ids: Iterator[int] = iter(())
        if wanted:
            ids = iter(await self.ledger.change(lambda t: [t.new_cluster() for _ in range(wanted)]))
        root = locate.spool(self.cfg)
        boxes: list[tuple[Sandbox, int] | str | None] = []
        writes: dict[Path, tuple[dict[str, bytes], str]] = {}
        for item, box in zip(items, sandboxes, strict=True):
            if not isinstance(box, tuple):
                boxes.append(box)
                continue
            cluster = next(ids)
            owner = str(owners.get(str(item.get("job"))))
            writes[spool.job_dir(root, (cluster, 0))] = (box[1], owner)
            boxes.append((box, cluster))
        if writes:
            try:
                await trio.to_thread.run_sync(_write_dirs, writes)
            except OSError as e:
                await trio.to_thread.run_sync(spool.remove_all, list(writes))
                raise Refused("spool", f"cannot write the sandboxes: {e}") from None
        now = _now()
        try:
            results = await self.ledger.change(lambda txn: self._route_all(txn, items, boxes, now))
        finally:
            # The directories of copies that were not made (refused, or the change failed).
            unused = [
                spool.job_dir(root, (box[1], 0))
                for box in boxes
                if isinstance(box, tuple) and not self.ledger.procs(box[1])
            ]
            if unused:
                spool.remove_all(unused)
        return Routed(results)

    def _route_all(
        self,
        txn: Transaction,
        items: list[Any],
        boxes: list[tuple[Sandbox, int] | str | None],
        now: int,
    ) -> list[dict[str, str]]:
        results: list[dict[str, str]] = []
        for item, box in zip(items, boxes, strict=True):
            try:
                copy = self._route_one(txn, item, now, box)
            except transitions.QueueError as e:
                results.append({"error": str(e)})
                continue
            results.append({"copy": routing.job_id(copy)})
        return results

    def _route_one(
        self, txn: Transaction, item: Any, now: int, box: tuple[Sandbox, int] | str | None
    ) -> Key:
        if not isinstance(item, dict):
            raise transitions.QueueError("bad-request", "a route item must be a map")
        original = routing.parse_id(item.get("job"))
        ad = txn.job(original) if original is not None else None
        copy, route = item.get("copy"), str(item.get("route") or "")
        if original is None or ad is None:
            raise transitions.QueueError("not-found", f"no job {item.get('job')!r}")
        if ad.get("JobStatus") != JobStatus.IDLE or routing.is_managed(ad):
            raise transitions.QueueError("busy", f"job {item.get('job')} is not idle and free")
        if self.shadows.busy(original):
            raise transitions.QueueError("busy", f"job {item.get('job')} is being matched")
        if not isinstance(copy, dict) or not route:
            raise transitions.QueueError("bad-request", "a route item needs a copy and a route")
        if isinstance(box, str):
            raise transitions.QueueError("spool", f"job {item.get('job')}: {box}")
        who = transitions.Submitter(str(ad.get("Owner")), self.me.uid_domain, self.me.name)
        if box is not None:
            # JobShouldBeSandboxed: the copy runs from its spool directory.
            (paths, files), cluster = box
            copy = {**copy, **paths}
            spool.mark(copy, spool.job_dir(locate.spool(self.cfg), (cluster, 0)), files)
        try:
            sub = Submission.decode(copy, [{}])
        except (Refused, wire.WireError) as e:  # refused whole, before any change
            raise transitions.QueueError("bad-request", str(e)) from None
        if box is None:
            cluster = txn.new_cluster()
        transitions.submit(txn, who, sub, now, cluster=cluster)
        routing.tie(txn, original, (cluster, 0), route, now)
        return (cluster, 0)

    async def reserve(self, peer: Peer, req: Reserve, ch: wire.Channel) -> Reserved:
        """Hand out the next cluster id, or `count` of them in a row (durably, so none
        is ever given twice)."""
        count = req.count if req.count is not None else 1
        if not 1 <= count <= MAX_RESERVE:
            raise Refused("bad-request", f"count must be 1 to {MAX_RESERVE}, not {count}")

        def take(txn: Transaction) -> int:
            first = txn.new_cluster()
            for _ in range(count - 1):
                txn.new_cluster()
            return first

        first = await self.ledger.change(take)
        for cluster in range(first, first + count):
            self.intake.reserved[cluster] = peer.user
        return Reserved(first)

    async def query(self, peer: Peer, req: QueryJobs, ch: wire.Channel) -> Count:
        jobs = self.ledger.snapshot() if req.procs is not False else []
        if req.clusters:  # each cluster's own ad just before its jobs
            jobs = sorted([*jobs, *self.ledger.cluster_ads()], key=lambda item: item[0])
        after = routing.parse_id(req.after)
        if after is not None:  # the next page: the jobs after this one (queue order is
            jobs = [(k, ad) for k, ad in jobs if k > after]  # submission order, by id)
        ads = _select(jobs, req.constraint)
        if req.routes:
            ads = _routable(ads, req.routes)
        if req.limit is not None and req.limit >= 0:
            ads = ads[: req.limit]
        exprs = req.exprs
        sent = 0
        step = min(CHUNK, max(1, len(ads)))
        for start in range(0, len(ads), step):
            chunk = ads[start : start + step]
            if req.cedar is not None:
                rows: list[Any] = query.cedar_rows([ad for _, ad in chunk], req)
            elif exprs:
                rows = query.evaluate(exprs, [ad for _, ad in chunk])
            else:
                rows = [ad.printOld() for _, ad in chunk]
            await ch.send({"more": rows})
            sent += len(chunk)
            await trio.lowlevel.checkpoint()
        return Count(sent)

    async def autoclusters(self, peer: Peer, req: Autoclusters, ch: wire.Channel) -> Count:
        """A negotiator's request for our waiting jobs, one row per group of them."""
        jobs = [
            (k, ad)
            for k, ad in self.ledger.snapshot()
            if not self.shadows.busy(k) and not is_local(ad)  # the schedd runs those
        ]
        chosen = _select(jobs, req.constraint)
        try:
            pool = [ad for text in req.pool for ad in parseAds(str(text))]
        except ClassAdParseError as e:
            raise Refused("bad-request", f"autoclusters: a pool ad does not parse: {e}") from None
        groups = await self.clusters.group(chosen, pool, str(req.constraint))
        for start in range(0, len(groups), CHUNK):
            rows = [[count, ad.printOld()] for _, count, ad in groups[start : start + CHUNK]]
            await ch.send({"more": rows})
        return Count(len(groups))

    async def act(self, peer: Peer, req: Act, ch: wire.Channel) -> Acted:
        action = req.action
        if action not in ACTIONS:
            raise Refused("bad-request", f"act: unknown action {action!r}")
        if action in ("suspend", "continue"):
            return await self._pause(peer, req, action)
        reason = req.reason or _default_reason(action, peer.user)
        # per_job: each named job's outcome in "results" (HTCondor's per-job answers),
        # a job id not in the queue among them rather than refusing the request.
        per_job = req.per_job
        now = _now()

        def change(txn: Transaction) -> tuple[list[Key], list[str], dict[str, str]]:
            results: dict[str, str] = {}
            keys = self._chosen(req.ids, req.constraint, results if per_job else None)
            if action == "remove-x" and req.constraint:
                named = {k for k in map(_parse_id, map(str, req.ids or [])) if k}
                keys = [k for k in keys if k in named or self._is_removed(k)]
            allowed, denied = self._permitted(peer, keys)
            rules = _remove_rules(txn, allowed) if action in ("remove", "remove-x") else {}
            for key in allowed:
                results[f"{key[0]}.{key[1]}"] = self._act_one(txn, action, key, reason, now, peer)
            if action in ("remove", "remove-x"):
                for cluster in self._removed_clusters(peer, req, allowed):
                    self.factories.stop(txn, cluster)
                done = {k: r for k, r in rules.items() if results[f"{k[0]}.{k[1]}"] == "ok"}
                self._remove_others(txn, done, now, peer)
            if req.dry_run:  # the ledger commits nothing of a change that raises
                raise _DryRun((keys, denied, results))
            return keys, denied, results

        try:
            keys, denied, results = await self.ledger.change(change)
        except _DryRun as outcome:
            keys, denied, results = outcome.args[0]
        done = sum(r == "ok" for r in results.values())
        for job in denied:
            results[job] = "denied"
        return _acted(keys, done, denied, results if per_job else None, len(self.ledger))

    def _remove_others(
        self, txn: Transaction, removed: dict[Key, str], now: int, peer: Peer
    ) -> None:
        """A removed job's OtherJobRemoveRequirements (`removed`: each removed job's; a
        DAGMan job's names its node jobs) removes the jobs it matches, and theirs in turn,
        as HTCondor's schedd does; only jobs the remover may act on."""
        work = list(removed.items())
        seen = set(removed)
        while work:
            key, rule = work.pop()
            try:
                matched = [k for k, _ in _select(self.ledger.snapshot(), rule)]
            except Refused:
                log.warning("job %d.%d: OtherJobRemoveRequirements does not parse", *key)
                continue
            allowed, _ = self._permitted(peer, [k for k in matched if k not in seen])
            why = (
                f"removed because <OtherJobRemoveRequirements = {rule}> fired when job"
                f" ({key[0]}.{key[1]}) was removed"
            )
            for other in allowed:
                seen.add(other)
                theirs = _remove_rules(txn, [other])  # read before it leaves the queue
                if transitions.remove(txn, other, why, now, f"remove by {peer.user}"):
                    work.extend(theirs.items())

    def _removed_clusters(self, peer: Peer, req: Act, removed: list[Key]) -> set[int]:
        """The clusters a removal takes whole (named by cluster id, or chosen by a
        constraint): their factories make no more jobs. A job named by its own id takes
        only itself."""
        clusters = {k[0] for k in removed} if req.constraint else set()
        return clusters | self._clusters_named(peer, req.ids)

    def _clusters_named(self, peer: Peer, ids: list[Any] | None) -> set[int]:
        """The clusters `ids` name whole (`5`, not `5.0`) that the peer may act on."""
        clusters = set()
        for text in ids or []:
            key = _parse_id(str(text))
            if key is not None and key[1] < 0:
                ad = self.ledger.queue.clusters.get(key[0])
                owner = ad.get("Owner") if ad is not None else None
                if security.may_act_on(peer.user, str(owner), self.super_users):
                    clusters.add(key[0])
        return clusters

    def _factories_named(self, peer: Peer, ids: list[Any] | None, constraint: Any) -> set[int]:
        """The job factories `ids` name whole, or whose cluster ads `constraint` matches."""
        named = {c for c in self._clusters_named(peer, ids) if c in self.factories.sources}
        if constraint:
            ads = [((c, -1), self.ledger.queue.clusters.get(c)) for c in self.factories.sources]
            for (c, _), ad in _select([(k, a) for k, a in ads if a is not None], constraint):
                if security.may_act_on(peer.user, str(ad.get("Owner")), self.super_users):
                    named.add(c)
        return named

    def _is_removed(self, key: Key) -> bool:
        ad = self.ledger.get(key)
        return ad is not None and ad.get("JobStatus") == JobStatus.REMOVED

    async def _pause(self, peer: Peer, req: Act, action: str) -> Acted:
        """condor_suspend / condor_continue: the startd signals the job's process tree,
        then the queue records it."""
        per_job = req.per_job
        results: dict[str, str] = {}
        keys = self._chosen(req.ids, req.constraint, results if per_job else None)
        allowed, denied = self._permitted(peer, keys)
        change = transitions.suspend if action == "suspend" else transitions.resume
        done = 0
        for key in allowed:
            ad = self.ledger.get(key)
            want = JobStatus.RUNNING if action == "suspend" else JobStatus.SUSPENDED
            job = f"{key[0]}.{key[1]}"
            if ad is None or ad.get("JobStatus") != want:
                already = JobStatus.SUSPENDED if action == "suspend" else JobStatus.RUNNING
                is_done = ad is not None and ad.get("JobStatus") == already
                results[job] = "already-done" if is_done else "bad-status"
                continue
            ok = False
            if req.dry_run:
                done += 1
                results[job] = "ok"
                continue
            if await self.shadows.signal(key, action):
                now = _now()
                ok = bool(await self.ledger.change(functools.partial(change, key=key, now=now)))
            done += ok
            results[job] = "ok" if ok else "bad-status"
        for job in denied:
            results[job] = "denied"
        return _acted(keys, done, denied, results if per_job else None, len(self.ledger))

    def _act_one(
        self, txn: Transaction, action: str, key: Key, reason: str, now: int, peer: Peer
    ) -> str:
        """One job's outcome, in HTCondor's terms: ok, already-done or bad-status."""
        by = f"{action} by {peer.user}"
        ad = txn.job(key)
        if ad is None:
            return "not-found"
        status = JobStatus.of(ad)
        if action == "remove-x":
            return "ok" if transitions.force_remove(txn, key, now) else "bad-status"
        if action == "remove":
            return "ok" if transitions.remove(txn, key, reason, now, by) else "already-done"
        if action == "hold":
            code = int(transitions.HoldCode.USER_REQUEST)
            if transitions.hold(txn, key, reason, code, 0, now, by):
                return "ok"
            return "already-done" if status == JobStatus.HELD else "bad-status"
        return "ok" if transitions.release(txn, key, reason, now, by) else "bad-status"

    async def edit(self, peer: Peer, req: Edit, ch: wire.Channel) -> Acted:
        change = self._edit_change(peer, req, _now())
        keys, allowed, denied, results = await self.ledger.change(change)
        for job in denied:
            results[job] = "denied"
        answer = req.per_job or req.strict
        return _acted(keys, len(allowed), denied, results if answer else None, len(self.ledger))

    def _edit_change(
        self, peer: Peer, req: Edit, now: int
    ) -> Callable[[Transaction], tuple[list[Key], list[Key], list[str], dict[str, str]]]:
        """The queue change an edit makes: (jobs chosen, edited, denied, each one's result)."""
        attrs, unset = req.attrs, [str(n) for n in req.unset or []]
        if not attrs and not unset:
            raise Refused("bad-request", "edit: 'attrs' must be a non-empty map")
        self.attr_rules.check_edit(peer.user, [*map(str, attrs), *unset], self.super_users)
        evaluate = req.evaluate
        answer = req.per_job or req.strict

        def change(txn: Transaction) -> tuple[list[Key], list[Key], list[str], dict[str, str]]:
            results: dict[str, str] = {}
            keys = self._chosen(req.ids, req.constraint, results if answer else None)
            allowed, denied = self._permitted(peer, keys)
            if req.only_mine:
                named = {k for k in map(_parse_id, map(str, req.ids or [])) if k}
                keys = [k for k in keys if k in allowed or k in named]
                denied = [d for d in denied if _parse_id(d) in named]
            if req.strict and (results or denied):
                return keys, [], denied, results  # a transaction that fails sets nothing
            for key in allowed:
                for name, text in attrs.items():
                    transitions.edit(txn, key, str(name), str(text), evaluate)
                for name in unset:
                    transitions.unset(txn, key, name)
                transitions.edited(txn, key, [*map(str, attrs), *unset], now)
                transitions.let_go(txn, key, now)  # LeaveJobInQueue = false lets it go
                results[f"{key[0]}.{key[1]}"] = "ok"
            # A factory named by its cluster id or chosen by the constraint: its own ad
            # too, for the jobs to come.
            for cluster in self._factories_named(peer, req.ids, req.constraint):
                for name, text in attrs.items():
                    transitions.edit_cluster(txn, cluster, str(name), str(text))
            return keys, allowed, denied, results

        return change

    async def exited(self, peer: Peer, req: Exited, ch: wire.Channel) -> ExitRecorded:
        """A job's process ended (the shadow's report); only the pool itself may say so."""
        key = _parse_id(req.job)
        if key is None or key[1] < 0:
            raise Refused("bad-request", f"exited: bad job id {req.job!r}")
        how = transitions.Exit(code=req.code, signal=req.signal)
        now = _now()
        outcome = await self.ledger.change(lambda txn: transitions.exited(txn, key, how, now))
        return ExitRecorded(outcome.value)

    async def matched(self, peer: Peer, req: Matched, ch: wire.Channel) -> Done:
        """The negotiator's match of one of our jobs with a slot (and its claim id)."""
        key = _parse_id(req.job)
        if key is None or key[1] < 0:
            raise Refused("bad-request", f"matched: bad job id {req.job!r}")
        if req.autocluster:
            picked = self.clusters.pick(key, self._waiting)
            if picked is None:
                raise Refused("not-found", f"no job of {req.job}'s autocluster is waiting")
            key = picked
        claim = ClaimInfo(
            id=req.claim_id, startd=Address.parse(req.startd), slot=req.slot, user=req.user
        )
        self.shadows.matched(key, claim)
        return Done()

    async def matched_many(self, peer: Peer, req: MatchedMany, ch: wire.Channel) -> Each:
        """A cycle's matches of our jobs at once."""
        return Each(await batch.each(peer, req.items, Matched, self.matched, ch))

    def _waiting(self, key: Key) -> bool:
        """Whether the job waits for a match: idle here, and neither matched nor running."""
        return not self.shadows.busy(key) and runs_here(self.ledger.get(key))

    # -- following up what was committed --------------------------------------------------

    async def follow_up(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """What every commit asks of the rest of the schedd, read from the ledger's news
        (a burst of commits at once): jobs that became Idle are offered to the claims
        that may reuse them, and the negotiator is asked for a cycle; the runs of jobs
        held or removed are stopped; the gridmanager looks at changed grid jobs."""
        news = self.ledger.news
        async with trio.open_nursery() as aside:  # the negotiator is asked aside
            self._aside = aside
            task_status.started()
            async for first in news:
                batch = [first]
                while True:
                    try:
                        batch.append(news.receive_nowait())
                    except trio.WouldBlock:
                        break
                try:
                    await self._follow(Committed.merged(batch), aside)
                except Exception:
                    # A follow-up's bug must cost that follow-up, never the schedd.
                    log.exception("following up a queue change failed")

    async def _follow(self, news: Committed, aside: trio.Nursery) -> None:
        if news.idle:
            local: list[Key] = []
            others: list[Key] = []
            for k in news.idle:  # one pass: a submission's news may name 100,000 jobs
                (local if is_local(self.ledger.get(k)) else others).append(k)
            self.local.note_idle(local)
            if others:
                self.shadows.note_idle(others)
                self.reschedules.request(aside)
        if news.grid:
            self.grid.poke()
        for key in news.stopped:
            await self.shadows.stop(key)
            await self.local.stop(key)

    async def requeue_orphans(self) -> None:
        """After a restart: jobs marked Running have lost their claims; run them again."""
        why, now, orphans = "the schedd restarted", _now(), self._orphans

        def requeue(txn: Transaction) -> None:
            for key in orphans:
                transitions.lose_running(txn, key, why, now)

        if orphans:
            await self.ledger.change(requeue)
        self._orphans = []

    async def recompute_cron(self) -> int:
        """Every idle cron job's next run from now, as on a restart or condor_reconfig (the
        zone may have changed); returns how many DeferralTimes moved.

        An idle cron job's DeferralTime is derived state: this pass recomputes it at every
        start, so the new times are set in the table and reach the disk with the job's next
        change, not in a 100,000-row rewrite now (after a kill -9 the next start computes
        the same times again). Holds of invalid schedules are real changes, and committed."""
        now = _now()
        started = time.perf_counter()
        changed, invalid = deferral.recompute(self.ledger.snapshot(), now)
        for key, t in changed.items():
            ad = self.ledger.get(key)
            if ad is not None:
                ad["DeferralTime"] = t

        def hold(txn: Transaction) -> None:
            code = transitions.HoldCode.INVALID_CRON_SETTINGS
            for key, why in invalid.items():
                transitions.hold(txn, key, why, code, 0, now)

        if invalid:
            await self.ledger.change(hold)
        log.info(
            "cron: %d next runs moved, %d invalid schedules held, in %.3f s (zone %s)",
            len(changed),
            len(invalid),
            time.perf_counter() - started,
            deferral.zone or "local",
        )
        return len(changed)

    # -- choosing jobs --------------------------------------------------------------------

    def _chosen(
        self, ids: list[Any] | None, constraint: Any, missing: dict[str, str] | None = None
    ) -> list[Key]:
        """The jobs a request names by id or chooses by constraint; with `missing`, a job
        id not in the queue is noted there (as "not-found") instead of refusing."""
        ids = ids or []
        if not ids and not constraint:
            raise Refused("bad-request", "name jobs by id or give a constraint")
        keys: list[Key] = []
        jobs = self.ledger.snapshot()
        for text in ids:
            key = _parse_id(str(text))
            if key is None:
                raise Refused("bad-request", f"bad job id {text!r}")
            if key[1] >= 0:
                if self.ledger.get(key) is None:
                    if missing is not None:
                        missing[f"{key[0]}.{key[1]}"] = "not-found"
                        continue
                    raise Refused("not-found", f"job {key[0]}.{key[1]} not found")
                keys.append(key)
            else:
                found = self.ledger.procs(key[0])
                if not found and key[0] not in self.ledger.queue.clusters:
                    raise Refused("not-found", f"cluster {key[0]} not found")
                keys.extend((key[0], p) for p in found)
        if constraint:
            keys.extend(k for k, _ in _select(jobs, constraint))
        return list(dict.fromkeys(keys))

    def _permitted(self, peer: Peer, keys: Sequence[Key]) -> tuple[list[Key], list[str]]:
        allowed, denied = [], []
        for key in keys:
            ad = self.ledger.get(key)
            owner = ad.get("Owner") if ad is not None else None
            if security.may_act_on(peer.user, str(owner), self.super_users):
                allowed.append(key)
            else:
                denied.append(f"{key[0]}.{key[1]}")
        return allowed, denied

    # -- periodic policy ------------------------------------------------------------------

    def _system_policy(self) -> policy.SystemPolicy:
        def rule(name: str) -> tuple[str, ExprTree] | None:
            text = self.cfg.get(name)
            if not text:
                return None
            try:
                return name, ExprTree(text)
            except ValueError as e:
                log.warning("%s is not a valid expression (%s); ignored", name, e)
                return None

        return policy.SystemPolicy(
            rule("SYSTEM_PERIODIC_REMOVE"),
            rule("SYSTEM_PERIODIC_HOLD"),
            rule("SYSTEM_PERIODIC_RELEASE"),
        )

    async def periodic(self) -> int:
        """One pass of the periodic expressions over the whole queue; a running job that
        they hold or remove is stopped on its slot."""
        system = self._system_policy()
        now = _now()
        changed = await self.ledger.change(
            lambda txn: policy.evaluate(txn, self.ledger.snapshot(), now, system)
        )
        return len(changed)

    async def periodic_loop(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        task_status.started()
        interval = max(1, self.cfg.get_int("PERIODIC_EXPR_INTERVAL", 60))
        while True:
            await trio.sleep(interval)
            await self.periodic()

    def handlers(self) -> dict[type[Message], Handler]:
        return {
            Submit: self.submit,
            StageIn: self.stage_in,
            StageOut: self.stage_out,
            Transact: self.transact,
            Reserve: self.reserve,
            Route: self.route,
            QueryJobs: self.query,
            Act: self.act,
            Edit: self.edit,
            Exited: self.exited,
            Retrieve: self.retrieve,
            RunNow: self.run_now,
            Matched: self.matched,
            MatchedMany: self.matched_many,
            Autoclusters: self.autoclusters,
            History: HistoryQueries(locate.history_file(self.cfg)).history,
            Reschedule: self.reschedule,
        }

    async def reschedule(self, peer: Peer, req: Reschedule, ch: wire.Channel) -> Done:
        """condor_reschedule: the negotiator is asked in the background (it may be slow
        to answer, or down); the asker need not wait for it."""
        if self._aside is None:
            raise Refused("busy", "the schedd is starting")
        self.reschedules.request(self._aside)
        return Done()


class _DryRun(Exception):  # noqa: N818 - not an error: the outcome of a dry run
    """Raised out of a dry run's change, carrying its outcome, so that nothing commits."""


def _acted(
    keys: list[Key], done: int, denied: list[str], results: dict[str, str] | None, size: int
) -> Acted:
    """An act's reply; with each job's result (per_job), the queue's size too."""
    if results is None:
        return Acted(len(keys), done, list(denied))
    return Acted(len(keys), done, list(denied), results, size)


# A sandboxed copy's spooled names and its input files.
Sandbox = tuple[dict[str, Any], dict[str, bytes]]


def _gather_sandboxes(items: list[Any], owners: dict[str, object]) -> list[Sandbox | str | None]:
    """For each route item that asks for a sandbox, its input files, read from where the
    copy names them with its original's owner's rights (or why they cannot be). A
    route's shared proxy is the pool's, read with this schedd's own."""
    out: list[Sandbox | str | None] = []
    for item in items:
        if not isinstance(item, dict) or not item.get("sandbox"):
            out.append(None)
            continue
        try:
            copy = wire.ad_from_wire(item.get("copy"), "routed copy")
            shared = item.get("shared_proxy")
            if isinstance(shared, str) and shared:
                copy["X509UserProxy"] = "/dev/null"  # not the user's to read: below
            owner = owners.get(str(item.get("job")))
            paths, files = spool.gather(copy, owner or "nobody")
            if isinstance(shared, str) and shared:
                leaf = Path(shared).name
                files[leaf] = Path(shared).read_bytes()
                paths["X509UserProxy"] = leaf
            out.append((paths, files))
        except (spool.SpoolError, wire.WireError) as e:
            out.append(str(e))
        except OSError as e:
            out.append(f"cannot read the shared proxy: {e.strerror}")
    return out


def _write_dirs(writes: dict[Path, tuple[dict[str, bytes], str]]) -> None:
    for directory, (files, owner) in writes.items():
        spool.write(directory, files, owner)


def _remove_rules(txn: Transaction, keys: list[Key]) -> dict[Key, str]:
    """The jobs' OtherJobRemoveRequirements, those that have one."""
    rules = {}
    for key in keys:
        ad = txn.job(key)
        rule = ad.get("OtherJobRemoveRequirements") if ad is not None else None
        if isinstance(rule, str) and rule.strip():
            rules[key] = rule
    return rules


def _select(jobs: list[tuple[Key, ClassAd]], constraint: Any) -> list[tuple[Key, ClassAd]]:
    return query.select(jobs, [ad for _, ad in jobs], constraint)


def _routable(jobs: list[tuple[Key, ClassAd]], routes: Any) -> list[tuple[Key, ClassAd]]:
    """The jobs some route's requirements accept (the route as MY, the job as TARGET),
    judged here in one pass per route so that the router reads only those."""
    if not isinstance(routes, list):
        raise Refused("bad-request", "query: 'routes' must be a list of route ads")
    ads = [ad for _, ad in jobs]
    taken = [False] * len(jobs)
    for data in routes:
        route = wire.ad_from_wire(data, "route ad")
        if "requirements" not in route:
            return jobs
        for i, v in enumerate(eval_against(route.lookup("requirements"), route, ads)):
            taken[i] = taken[i] or v is True
    return [job for job, ok in zip(jobs, taken, strict=True) if ok]


def _parse_id(text: str) -> Key | None:
    cluster, _, proc = text.partition(".")
    if not cluster.isdigit() or (proc and not proc.isdigit()):
        return None
    return int(cluster), int(proc) if proc else -1


def _default_reason(action: str, user: str) -> str:
    verb = {
        "remove": "condor_rm",
        "remove-x": "condor_rm -forcex",
        "hold": "condor_hold",
        "release": "condor_release",
        "suspend": "condor_suspend",
        "continue": "condor_continue",
    }[action]
    return f"via {verb} (by user {user})"


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


def _now() -> int:
    return int(time.time())


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    """Run a schedd until cancelled; reports its TCP address once it accepts requests."""
    deferral.zone = _cron_zone(cfg)
    me = Identity.from_config(cfg)
    deferral.schedd_interval = me.interval
    files = Files(
        locate.history_file(cfg),
        history.Rotation(
            cfg.get_int("MAX_HISTORY_LOG", 20 * 1024 * 1024),
            cfg.get_int("MAX_HISTORY_ROTATIONS", 2),
        ),
        locate.spool(cfg),
    )
    ledger = Ledger(JobQueue(Store(locate.job_queue_db(cfg))), files)
    async with trio.open_nursery() as nursery:
        await nursery.start(ledger.run)
        shadows = Shadows(
            ledger,
            StartdClient(
                daemon_credentials(cfg), nursery, cfg.get_int("SCHEDD_CLAIM_CONCURRENCY", 256)
            ),
            me,
            nursery,
        )
        grid = GridManager(ledger, cfg, me.name)
        schedd = Schedd(cfg, ledger, me, shadows, grid)
        await nursery.start(schedd.follow_up)
        # The queue is settled before anyone may read it: orphans requeued, cron times new.
        await schedd.requeue_orphans()
        await schedd.recompute_cron()
        await ledger.change(schedd.factories.resume)  # their jobs, as the queue now has room
        await nursery.start(schedd.local.run)
        server = Server.for_daemon("schedd", schedd.handlers(), cfg, cedar_schedd.commands(cfg))
        me.address = ledger.address = await server.listen(
            nursery,
            cfg.get_int("SCHEDD_PORT", 0),
            unix=locate.schedd_socket(cfg),
            address_file=locate.schedd_address_file(cfg),
        )
        await nursery.start(schedd.periodic_loop)
        await nursery.start(grid.loop)
        server.show(lambda: advertise.ads(ledger, me))
        await nursery.start(advertise.advertiser(cfg, ledger, me).run)
        log.info("schedd %s serving %d jobs at %s", me.name, len(ledger), me.address)
        task_status.started(me.address)
