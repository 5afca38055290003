"""How a submission enters the queue: checked (its owner, its size, its reserved cluster
id), its files put in place (spooled inputs, a job factory's rows), and only then staged.

`prepare` does everything that may be refused or needs the disk before the queue is
touched, and returns a `Staged`: the change that queues the submission and the undo for
its files. The caller commits the change alone (`submit`) or with others in one
transaction (a queue-management transaction of HTCondor's clients: all or nothing).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from condorx.classad import ClassAd
from condorx.daemons.core.server import Peer
from condorx.daemons.schedd import (
    advertise,
    entry,
    factory,
    factory_state,
    jobsets,
    spool,
    stage,
    submit_rules,
)
from condorx.daemons.schedd.clock import Clock, wall
from condorx.daemons.schedd.factory import Factories
from condorx.daemons.schedd.identity import Identity
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.limits import QueueLimits
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.secure_attrs import SecureAttrs
from condorx.daemons.schedd.submission import Submission
from condorx.errors import Refusal, Refused
from condorx.language.config import Config, ConfigError
from condorx.language.submit.errors import SubmitError
from condorx.record import replace
from condorx.transport import locate, security, wire
from condorx.transport.protocol.schedd.submit import Submit, Submitted

log = logging.getLogger("condorx.schedd")


@dataclass
class Staged:
    """A submission ready to queue: `stage` stages it (its cluster id), `undo` takes its
    files back when it is not committed."""

    stage: Callable[[Transaction], int]
    undo: Callable[[], None]
    procs: int
    owner: str
    cluster: int | None  # its reserved (or already chosen) id
    warnings: list[str] = field(default_factory=list)  # its submit requirements' warnings


class Intake:
    def __init__(
        self,
        cfg: Config,
        ledger: Ledger,
        me: Identity,
        factories: Factories,
        super_users: list[str],
        clock: Clock = wall,
    ) -> None:
        self.cfg, self.ledger, self.me = cfg, ledger, me
        self.clock = clock
        self.factories = factories
        self.super_users = super_users
        self.limits = QueueLimits.from_config(cfg)
        self.max_procs = self.limits.per_submission
        self.use_jobsets = cfg.get_bool("USE_JOBSETS", False)
        # The owners this schedd has seen submit (HTCondor's owner history): a queue super
        # user submits for them alone, unless QUEUE_SUPER_USER_MAY_IMPERSONATE matches.
        self.owners_seen = {owner for owner, _, _ in ledger.counts()}
        self.impersonate = _impersonation(cfg)
        self.secure = SecureAttrs(cfg)
        self.rules = submit_rules.from_config(cfg)
        if self.rules.active and cfg.get_bool("TRANSFORM_FACTORY_AND_JOB_ADS", True):
            factories.rules = self._materialized
        # Cluster ids handed out by `reserve` (condor_submit needs $(Cluster) before it
        # builds the ads), by the user they were given to.
        self.reserved: dict[int, str] = {}
        self.submitted: Callable[[int], None] = lambda procs: None  # JobsSubmitted

    async def submit(self, peer: Peer, req: Submit) -> Submitted:
        """A submission, checked and its files put in place, then queued in one commit."""
        staged = await self.prepare(peer, req)
        try:
            cluster = await self.ledger.change(staged.stage)
        except BaseException:
            staged.undo()
            raise
        self.committed(staged, cluster)
        return Submitted(cluster, staged.procs, staged.warnings or None)

    def committed(self, staged: Staged, cluster: int) -> None:
        """After the commit: the reserved id is used, the owner known, the jobs counted."""
        self.reserved.pop(cluster, None)
        self.owners_seen.add(staged.owner)
        self.submitted(staged.procs)

    async def prepare(self, peer: Peer, req: Submit, earlier: int = 0) -> Staged:
        """Check a submission and put its files in place; refused (naming what) or ready.
        `earlier`: the procs of the same transaction's submissions before it, which the
        limits count with its own (HTCondor's jobs_added_this_transaction). With
        USE_JOBSETS, a cluster that names a JobSetName joins its set as it queues."""
        staged = await self._prepare(peer, req, earlier)
        if self.use_jobsets:
            stage = staged.stage

            def joined(txn: Transaction) -> int:
                cluster = stage(txn)
                jobsets.join(txn, cluster)
                return cluster

            staged.stage = joined
        return staged

    async def _prepare(self, peer: Peer, req: Submit, earlier: int) -> Staged:
        if peer.user != security.POOL_IDENTITY:  # the pool's daemons carry them on
            req = self._scrubbed(req)
        if peer.token:  # what the submitter's token says, as only the schedd sets it
            req = replace(req, cluster={**(req.cluster or {}), **peer.token})
        procs = req.procs
        who = entry.Submitter(self.owner(peer, req.cluster), self.me.uid_domain, self.me.name)
        if req.factory is None:
            self._within_limits(who.owner, len(procs) + earlier)
        wanted = req.cluster_id
        if wanted is not None and self.reserved.get(wanted) != peer.user:
            raise Refused(
                Refusal.BAD_REQUEST, f"cluster id {wanted!r} was not reserved by {peer.user}"
            )
        if req.factory is not None:
            return await self._factory(req, req.factory, who, wanted)
        if req.spooling:
            if req.spool is not None:
                raise Refused(Refusal.BAD_REQUEST, "submit: files spooled now and later both")
            if wanted is None:
                wanted = await self.ledger.change(lambda txn: txn.new_cluster())
            return self._awaiting_files(req, who, wanted)
        inputs = _spooled_inputs(req.spool, len(procs))
        if inputs is not None:
            # The files are in the spool before their jobs are in the queue, so a job in
            # the queue always has its files: the cluster id comes first.
            if wanted is None:
                wanted = await self.ledger.change(lambda txn: txn.new_cluster())
            procs = await self._spool(wanted, procs, inputs, peer.user)
        cluster, count = wanted, len(procs)

        def undo() -> None:
            if inputs is not None and cluster is not None:
                keys = [(cluster, proc) for proc in range(count)]
                spool.clean_unqueued(
                    Path(locate.spool(self.cfg)), keys, lambda k: self._queued(k[0])
                )

        try:
            sub, warnings = self._ruled(Submission.decode(req.cluster or {}, procs), who, cluster)
        except BaseException:
            undo()
            raise
        now = self.clock()
        return Staged(
            functools.partial(entry.submit, who=who, sub=sub, now=now, cluster=cluster),
            undo,
            count,
            who.owner,
            cluster,
            warnings,
        )

    def _ruled(
        self, sub: Submission, who: entry.Submitter, cluster: int | None
    ) -> tuple[Submission, list[str]]:
        """The submission after the job transforms, checked by the submit requirements."""
        if not self.rules.active:
            return sub, []
        base = submit_rules.stamps(who.owner, who.uid_domain, cluster)
        return submit_rules.submission(self.rules, sub, base, self._schedd_ad())

    def _materialized(
        self, own: dict[str, Any], job: ClassAd, cluster_ad: ClassAd, key: tuple[int, int]
    ) -> None:
        submit_rules.materialized(self.rules, own, job, cluster_ad, self._schedd_ad(), key)

    def _schedd_ad(self) -> ClassAd:
        """The schedd's own ad, MY to a submit requirement."""
        return ClassAd(advertise.ads(self.ledger, self.me)[0])

    def _within_limits(self, owner: str, procs: int) -> None:
        """MAX_JOBS_PER_SUBMISSION, MAX_JOBS_PER_OWNER and MAX_JOBS_SUBMITTED."""
        counts = self.ledger.counts()
        owned = sum(n for (who, _, _), n in counts.items() if who == owner)
        self.limits.check(owner, procs, owned, sum(counts.values()))

    def _scrubbed(self, req: Submit) -> Submit:
        """`req` without the attributes only the schedd sets (or refused for them)."""
        where = "new" if req.cluster_id is None else str(req.cluster_id)
        cluster = self.secure.scrub(req.cluster, f"{where}.-1")
        procs = [self.secure.scrub(p, f"{where}.{i}") for i, p in enumerate(req.procs)]
        return replace(req, cluster=cluster, procs=procs)

    def _awaiting_files(self, req: Submit, who: entry.Submitter, cluster: int) -> Staged:
        """Jobs whose input files come later (HTCondor's spool=True): queued held for
        them, each ad rewritten to run from its spool directory."""
        root = Path(locate.spool(self.cfg))
        base = req.cluster or {}
        procs = []
        for proc, attrs in enumerate(req.procs):
            if not isinstance(attrs, dict):
                raise Refused(Refusal.BAD_REQUEST, f"proc {proc}: expected a map of attributes")
            view = {**base, **attrs}
            changes = stage.rewrite(view, spool.job_dir(root, (cluster, proc)))
            undefined = wire.Expr("undefined")
            procs.append(
                {**attrs, **{k: undefined if v is None else v for k, v in changes.items()}}
            )
        sub, warnings = self._ruled(Submission.decode(base, procs), who, cluster)
        now, held = self.clock(), (stage.SPOOLING_REASON, stage.SPOOLING_INPUT)
        return Staged(
            functools.partial(entry.submit, who=who, sub=sub, now=now, cluster=cluster, held=held),
            lambda: None,
            len(procs),
            who.owner,
            cluster,
            warnings,
        )

    def _queued(self, cluster: int) -> bool:
        return cluster in self.ledger.queue.clusters

    async def _factory(
        self, req: Submit, spec: dict[str, Any], who: entry.Submitter, wanted: int | None
    ) -> Staged:
        """A cluster whose jobs are made as their turn comes (late materialization)."""
        if not self.cfg.get_bool("SCHEDD_ALLOW_LATE_MATERIALIZE", True):
            raise Refused(Refusal.PERMISSION, "submit: SCHEDD_ALLOW_LATE_MATERIALIZE is false here")
        if req.spool is not None:
            raise Refused(Refusal.BAD_REQUEST, "submit: a job factory's files cannot be spooled")
        limit = spec.get("limit", 0)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise Refused(Refusal.BAD_REQUEST, f"submit: factory limit {limit!r} is not a count")
        cluster_ad = wire.ad_from_wire(req.cluster or {}, "cluster ad")
        if wanted is None:
            wanted = await self.ledger.change(lambda txn: txn.new_cluster())
        warnings: list[str] = []
        if self.rules.active:
            base = submit_rules.stamps(who.owner, who.uid_domain, wanted)
            cluster_ad, warnings = submit_rules.factory_cluster(
                self.rules, cluster_ad, base, self._schedd_ad()
            )
        try:
            source = factory.source_of(spec, req.procs, wanted, cluster_ad)
        except SubmitError as e:
            raise Refused(Refusal.BAD_REQUEST, f"submit: {e}") from None
        if source.total > self.max_procs:
            raise Refused(
                Refusal.BAD_REQUEST,
                f"submit: {source.total} procs exceed MAX_JOBS_PER_SUBMISSION ({self.max_procs})",
            )
        attrs = await trio.to_thread.run_sync(self.factories.create, wanted, source)
        if limit:
            attrs[factory_state.LIMIT] = limit
        now, cluster = self.clock(), wanted

        def undo() -> None:
            if not self._queued(cluster):
                self.factories.discard(cluster)

        log.info("%s: job factory %d of %d procs", who.owner, cluster, source.total)
        return Staged(
            functools.partial(
                entry.submit_factory,
                who=who,
                cluster_ad=cluster_ad,
                factory=attrs,
                now=now,
                cluster=cluster,
            ),
            undo,
            source.total,
            who.owner,
            cluster,
            warnings,
        )

    def owner(self, peer: Peer, cluster: Any) -> str:
        """Whose jobs a submission makes: the submitter's, or the Owner its cluster ad
        names when a queue super user (or the pool's daemons) submits for an owner this
        schedd has seen submit, or one QUEUE_SUPER_USER_MAY_IMPERSONATE matches (a
        simulated pool loading a real queue's jobs, each user's as theirs), as HTCondor's
        schedd has it. Anyone else naming another owner is refused."""
        named = cluster.get("Owner") if isinstance(cluster, dict) else None
        if named is None or named == peer.user:
            return peer.user
        if (
            not isinstance(named, str)
            or not named
            or not security.may_act_on(peer.user, named, self.super_users)
        ):
            raise Refused(Refusal.PERMISSION, f"{peer.user} may not submit jobs as {named!r}")
        if self.impersonate is not None:
            allowed = self.impersonate.search(named) is not None
        else:
            allowed = named in self.owners_seen
        if not allowed:
            raise Refused(
                Refusal.PERMISSION,
                f"{peer.user} may not submit jobs as {named!r}: this schedd has not seen"
                f" {named} submit, and QUEUE_SUPER_USER_MAY_IMPERSONATE does not match",
            )
        return named

    async def _spool(
        self, cluster: int, procs: list[Any], inputs: list[dict[str, bytes]], owner: str
    ) -> list[Any]:
        """Write each proc's input files to its spool directory (before the jobs exist,
        so that a job in the queue always has its files); the procs, pointed there."""
        root = Path(locate.spool(self.cfg))
        out = []
        for proc, (attrs, files) in enumerate(zip(procs, inputs, strict=True)):
            if not isinstance(attrs, dict):
                raise Refused(Refusal.BAD_REQUEST, f"proc {proc}: expected a map of attributes")
            attrs = dict(attrs)
            try:
                spool.check_paths(attrs, files, f"proc {proc}")
            except spool.SpoolError as e:
                raise Refused(Refusal.BAD_REQUEST, str(e)) from None
            spool.mark(attrs, spool.job_dir(root, (cluster, proc)), files)
            out.append(attrs)

        writes = {
            spool.job_dir(root, (cluster, proc)): (files, owner)
            for proc, files in enumerate(inputs)
        }
        try:
            await trio.to_thread.run_sync(spool.write_all, writes)
        except OSError as e:
            raise Refused(Refusal.SPOOL, f"cannot spool the input files: {e}") from None
        return out


def _spooled_inputs(data: Any, count: int) -> list[dict[str, bytes]] | None:
    """A submission's spooled input files: one map of name to bytes per proc, or None."""
    if data is None:
        return None
    if not isinstance(data, list) or len(data) != count:
        raise Refused(Refusal.BAD_REQUEST, "submit: 'spool' must list one map of files per proc")
    for proc, files in enumerate(data):
        if not isinstance(files, dict):
            raise Refused(Refusal.BAD_REQUEST, f"submit: proc {proc}'s spooled files must be a map")
        try:
            spool.check_names(files, f"proc {proc}")
        except spool.SpoolError as e:
            raise Refused(Refusal.BAD_REQUEST, str(e)) from None
    return data


def _impersonation(cfg: Config) -> re.Pattern[str] | None:
    text = (cfg.get("QUEUE_SUPER_USER_MAY_IMPERSONATE") or "").strip()
    if not text:
        return None
    try:
        return re.compile(text)
    except re.error as e:
        raise ConfigError(
            f"QUEUE_SUPER_USER_MAY_IMPERSONATE: not a regular expression: {e}"
        ) from None
