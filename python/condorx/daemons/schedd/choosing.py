"""Which jobs a request names (by id, by cluster, by constraint), and which of them its
peer may act on: its own, or any if it is a queue super user (QUEUE_SUPER_USERS) or the
pool itself. Every handler that acts on jobs chooses them here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.core import query
from condorx.daemons.core.server import Peer
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.store import Key, job_id, parse_job_id
from condorx.errors import Refusal, Refused
from condorx.transport import security


def parse_id(text: str) -> Key | None:
    """A request's job or cluster name: `5.3` as (5, 3), `5` as (5, -1)."""
    return parse_job_id(text, whole_cluster=True)


def select(jobs: list[tuple[Key, ClassAd]], constraint: Any) -> list[tuple[Key, ClassAd]]:
    """The jobs whose ads satisfy `constraint` (all of them when there is none)."""
    return query.select(jobs, [ad for _, ad in jobs], constraint)


class Chooser:
    def __init__(self, ledger: Ledger, super_users: list[str]) -> None:
        self.ledger = ledger
        self.super_users = super_users

    def may_act(self, peer: Peer, owner: object) -> bool:
        return security.may_act_on(peer.user, str(owner), self.super_users)

    def job_of(self, peer: Peer, text: str) -> tuple[Key | None, ClassAd | None, bool]:
        """The job `text` names (None: not a job id), its ad (None: not here), and
        whether the peer may act on it."""
        key = parse_job_id(text)  # one proc: a whole cluster is not a job
        if key is None:
            return None, None, False
        ad = self.ledger.get(key)
        owner = ad.get("Owner") if ad is not None else ""
        return key, ad, ad is not None and self.may_act(peer, owner)

    def own_job(self, peer: Peer, text: str, what: str) -> Key:
        """The job a request names, which must be the peer's (or a queue super user's)."""
        key, ad, mine = self.job_of(peer, text)
        if key is None:
            raise Refused(Refusal.BAD_REQUEST, f"bad job id {text!r}")
        if ad is None:
            raise Refused(Refusal.NOT_FOUND, f"job {job_id(key)} not found")
        if not mine:
            raise Refused(Refusal.PERMISSION, f"{peer.user} may not {what} job {job_id(key)}")
        return key

    def chosen(
        self, ids: list[Any] | None, constraint: Any, missing: dict[str, str] | None = None
    ) -> list[Key]:
        """The jobs a request names by id or chooses by constraint; with `missing`, a job
        id not in the queue is noted there (as "not-found") instead of refusing."""
        ids = ids or []
        if not ids and not constraint:
            raise Refused(Refusal.BAD_REQUEST, "name jobs by id or give a constraint")
        keys: list[Key] = []
        for text in ids:
            key = parse_id(str(text))
            if key is None:
                raise Refused(Refusal.BAD_REQUEST, f"bad job id {text!r}")
            if key[1] >= 0:
                if self.ledger.get(key) is None:
                    if missing is not None:
                        missing[job_id(key)] = "not-found"
                        continue
                    raise Refused(Refusal.NOT_FOUND, f"job {job_id(key)} not found")
                keys.append(key)
            else:
                found = self.ledger.procs(key[0])
                if not found and key[0] not in self.ledger.queue.clusters:
                    raise Refused(Refusal.NOT_FOUND, f"cluster {key[0]} not found")
                keys.extend((key[0], p) for p in found)
        if constraint:
            keys.extend(k for k, _ in select(self.ledger.snapshot(), constraint))
        return list(dict.fromkeys(keys))

    def permitted(self, peer: Peer, keys: Sequence[Key]) -> tuple[list[Key], list[str]]:
        """The jobs the peer may act on, and the names of those it may not."""
        allowed, denied = [], []
        for key in keys:
            ad = self.ledger.get(key)
            if self.may_act(peer, ad.get("Owner") if ad is not None else None):
                allowed.append(key)
            else:
                denied.append(job_id(key))
        return allowed, denied

    def clusters_named(self, peer: Peer, ids: list[Any] | None) -> set[int]:
        """The clusters `ids` name whole (`5`, not `5.0`) that the peer may act on."""
        clusters = set()
        for text in ids or []:
            key = parse_id(str(text))
            if key is not None and key[1] < 0:
                ad = self.ledger.queue.clusters.get(key[0])
                if self.may_act(peer, ad.get("Owner") if ad is not None else None):
                    clusters.add(key[0])
        return clusters
