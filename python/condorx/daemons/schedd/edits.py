"""condor_qedit (and HTCondor's clients' SetAttribute): attributes set or unset on the
jobs a request chooses, within what IMMUTABLE_JOB_ATTRS and PROTECTED_JOB_ATTRS allow; a
job factory named whole has its cluster ad edited too, for the jobs it has yet to make."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from condorx.daemons.core.server import Peer
from condorx.daemons.schedd import factory, transitions
from condorx.daemons.schedd.actions import acted
from condorx.daemons.schedd.attr_rules import AttrRules
from condorx.daemons.schedd.choosing import Chooser, parse_id, select
from condorx.daemons.schedd.clock import Clock
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.store import Key, job_id
from condorx.errors import Refusal, Refused
from condorx.transport import wire
from condorx.transport.protocol.schedd.act import Acted, Edit

# An edit's change: (jobs chosen, jobs edited, jobs denied, each one's result).
EditChange = Callable[[Transaction], tuple[list[Key], list[Key], list[str], dict[str, str]]]


class Edits:
    def __init__(
        self,
        ledger: Ledger,
        chooser: Chooser,
        rules: AttrRules,
        factories: factory.Factories,
        clock: Clock,
    ) -> None:
        self.ledger = ledger
        self.chooser = chooser
        self.rules = rules
        self.factories = factories
        self.clock = clock

    async def edit(self, peer: Peer, req: Edit, ch: wire.Channel) -> Acted:
        keys, allowed, denied, results = await self.ledger.change(self.change(peer, req))
        for job in denied:
            results[job] = "denied"
        answer = req.per_job or req.strict
        return acted(keys, len(allowed), denied, results if answer else None, len(self.ledger))

    def change(self, peer: Peer, req: Edit) -> EditChange:
        """The queue change an edit makes, checked now (a queue-management transaction
        commits it with others)."""
        attrs, unset = req.attrs, [str(n) for n in req.unset or []]
        if not attrs and not unset:
            raise Refused(Refusal.BAD_REQUEST, "edit: 'attrs' must be a non-empty map")
        self.rules.check_edit(peer.user, [*map(str, attrs), *unset], self.chooser.super_users)
        evaluate = req.evaluate
        answer = req.per_job or req.strict
        now = self.clock()

        def change(txn: Transaction) -> tuple[list[Key], list[Key], list[str], dict[str, str]]:
            results: dict[str, str] = {}
            keys = self.chooser.chosen(req.ids, req.constraint, results if answer else None)
            allowed, denied = self.chooser.permitted(peer, keys)
            if req.only_mine:
                named = {k for k in map(parse_id, map(str, req.ids or [])) if k}
                keys = [k for k in keys if k in allowed or k in named]
                denied = [d for d in denied if parse_id(d) in named]
            if req.strict and (results or denied):
                return keys, [], denied, results  # a transaction that fails sets nothing
            for key in allowed:
                for name, text in attrs.items():
                    transitions.edit(txn, key, str(name), str(text), evaluate)
                for name in unset:
                    transitions.unset(txn, key, name)
                transitions.edited(txn, key, [*map(str, attrs), *unset], now)
                transitions.let_go(txn, key, now)  # LeaveJobInQueue = false lets it go
                results[job_id(key)] = "ok"
            # A factory named by its cluster id or chosen by the constraint: its own ad
            # too, for the jobs to come.
            for cluster in self._factories_named(peer, req.ids, req.constraint):
                for name, text in attrs.items():
                    transitions.edit_cluster(txn, cluster, str(name), str(text))
            return keys, allowed, denied, results

        return change

    def _factories_named(self, peer: Peer, ids: list[Any] | None, constraint: Any) -> set[int]:
        """The job factories `ids` name whole, or whose cluster ads `constraint` matches."""
        sources = self.factories.sources
        named = {c for c in self.chooser.clusters_named(peer, ids) if c in sources}
        if constraint:
            ads = [((c, -1), self.ledger.queue.clusters.get(c)) for c in sources]
            for (c, _), ad in select([(k, a) for k, a in ads if a is not None], constraint):
                if self.chooser.may_act(peer, ad.get("Owner")):
                    named.add(c)
        return named
