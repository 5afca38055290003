"""condor_rm, condor_hold, condor_release, condor_suspend and condor_continue: the jobs a
request chooses, each changed as HTCondor's schedd changes it, with its outcome in
HTCondor's terms (ok, already-done, bad-status, not-found, denied).

Removal also takes what a removed job asks to take with it (OtherJobRemoveRequirements:
a DAGMan job's node jobs) and stops the factories of clusters removed whole."""

from __future__ import annotations

import functools
import logging

from condorx.daemons.core.server import Peer
from condorx.daemons.schedd import factory, transitions
from condorx.daemons.schedd.choosing import Chooser, parse_id, select
from condorx.daemons.schedd.clock import Clock
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.shadow import Shadows
from condorx.daemons.schedd.store import Key, job_id
from condorx.errors import CondorxError, Refusal, Refused
from condorx.language.attrs import JobStatus
from condorx.transport import wire
from condorx.transport.protocol.schedd.act import Act, Acted

log = logging.getLogger("condorx.schedd")

ACTIONS = ("remove", "remove-x", "destroy", "hold", "release", "suspend", "continue")
# The command each action is, as the default reason names it.
_COMMANDS = {
    "remove": "condor_rm",
    "remove-x": "condor_rm -forcex",
    "destroy": "DestroyProc",
    "hold": "condor_hold",
    "release": "condor_release",
    "suspend": "condor_suspend",
    "continue": "condor_continue",
}


class Actions:
    def __init__(
        self,
        ledger: Ledger,
        chooser: Chooser,
        shadows: Shadows,
        factories: factory.Factories,
        clock: Clock,
    ) -> None:
        self.ledger = ledger
        self.chooser = chooser
        self.shadows = shadows
        self.factories = factories
        self.clock = clock

    async def act(self, peer: Peer, req: Act, ch: wire.Channel) -> Acted:
        action = req.action
        if action not in ACTIONS:
            raise Refused(Refusal.BAD_REQUEST, f"act: unknown action {action!r}")
        if action in ("suspend", "continue"):
            return await self._pause(peer, req, action)
        reason = req.reason or f"via {_COMMANDS[action]} (by user {peer.user})"
        # per_job: each named job's outcome in "results" (HTCondor's per-job answers),
        # a job id not in the queue among them rather than refusing the request.
        per_job = req.per_job
        now = self.clock()
        removing = action in ("remove", "remove-x")

        def change(txn: Transaction) -> tuple[list[Key], list[str], dict[str, str]]:
            results: dict[str, str] = {}
            keys = self.chooser.chosen(req.ids, req.constraint, results if per_job else None)
            if action == "remove-x" and req.constraint:
                named = {k for k in map(parse_id, map(str, req.ids or [])) if k}
                keys = [k for k in keys if k in named or self._is_removed(k)]
            allowed, denied = self.chooser.permitted(peer, keys)
            rules = _remove_rules(txn, allowed) if removing else {}
            for key in allowed:
                results[job_id(key)] = _act_one(txn, action, key, reason, now, peer)
            if removing:
                for cluster in self._removed_clusters(peer, req, allowed):
                    self.factories.stop(txn, cluster)
                done = {k: r for k, r in rules.items() if results[job_id(k)] == "ok"}
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
        return acted(keys, done, denied, results if per_job else None, len(self.ledger))

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
                matched = [k for k, _ in select(self.ledger.snapshot(), rule)]
            except Refused:
                log.warning("job %d.%d: OtherJobRemoveRequirements does not parse", *key)
                continue
            allowed, _ = self.chooser.permitted(peer, [k for k in matched if k not in seen])
            why = (
                f"removed because <OtherJobRemoveRequirements = {rule}> fired when job"
                f" ({job_id(key)}) was removed"
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
        return clusters | self.chooser.clusters_named(peer, req.ids)

    def _is_removed(self, key: Key) -> bool:
        ad = self.ledger.get(key)
        return ad is not None and ad.get("JobStatus") == JobStatus.REMOVED

    async def _pause(self, peer: Peer, req: Act, action: str) -> Acted:
        """condor_suspend / condor_continue: the startd signals the job's process tree,
        then the queue records it."""
        per_job = req.per_job
        results: dict[str, str] = {}
        keys = self.chooser.chosen(req.ids, req.constraint, results if per_job else None)
        allowed, denied = self.chooser.permitted(peer, keys)
        change = transitions.suspend if action == "suspend" else transitions.resume
        want = JobStatus.RUNNING if action == "suspend" else JobStatus.SUSPENDED
        already = JobStatus.SUSPENDED if action == "suspend" else JobStatus.RUNNING
        done = 0
        for key in allowed:
            ad = self.ledger.get(key)
            job = job_id(key)
            if ad is None or ad.get("JobStatus") != want:
                is_done = ad is not None and ad.get("JobStatus") == already
                results[job] = "already-done" if is_done else "bad-status"
                continue
            ok = bool(req.dry_run)
            if not req.dry_run and await self.shadows.signal(key, action):
                now = self.clock()
                ok = bool(await self.ledger.change(functools.partial(change, key=key, now=now)))
            done += ok
            results[job] = "ok" if ok else "bad-status"
        for job in denied:
            results[job] = "denied"
        return acted(keys, done, denied, results if per_job else None, len(self.ledger))


class _DryRun(CondorxError):  # noqa: N818 - not an error: the outcome of a dry run
    """Raised out of a dry run's change, carrying its outcome, so that nothing commits:
    a CondorxError, which the ledger takes as a change that declines (logged as no
    failure)."""


def _act_one(txn: Transaction, action: str, key: Key, reason: str, now: int, peer: Peer) -> str:
    """One job's outcome, in HTCondor's terms: ok, already-done or bad-status (and, for a
    DestroyProc, kept)."""
    by = f"{action} by {peer.user}"
    ad = txn.job(key)
    if ad is None:
        return "not-found"
    status = JobStatus.of(ad)
    if action == "remove-x":
        return "ok" if transitions.force_remove(txn, key, now) else "bad-status"
    if action == "destroy":
        return transitions.destroy(txn, key, now)
    if action == "remove":
        return "ok" if transitions.remove(txn, key, reason, now, by) else "already-done"
    if action == "hold":
        code = int(transitions.HoldCode.USER_REQUEST)
        if transitions.hold(txn, key, reason, code, 0, now, by):
            return "ok"
        return "already-done" if status == JobStatus.HELD else "bad-status"
    return "ok" if transitions.release(txn, key, reason, now, by) else "bad-status"


def acted(
    keys: list[Key], done: int, denied: list[str], results: dict[str, str] | None, size: int
) -> Acted:
    """An act's reply; with each job's result (per_job), the queue's size too."""
    if results is None:
        return Acted(len(keys), done, list(denied))
    return Acted(len(keys), done, list(denied), results, size)


def _remove_rules(txn: Transaction, keys: list[Key]) -> dict[Key, str]:
    """The jobs' OtherJobRemoveRequirements, those that have one."""
    rules = {}
    for key in keys:
        ad = txn.job(key)
        rule = ad.get("OtherJobRemoveRequirements") if ad is not None else None
        if isinstance(rule, str) and rule.strip():
            rules[key] = rule
    return rules
