"""The job table: cluster ads, proc ads chained to them, and transactions over both.

A proc ad holds only what differs from its cluster ad (ProcId, its JobStatus once that
changes, ...) and is chained to it, as HTCondor's queue chains them; a 100,000-proc
submission costs one cluster ad and 100,000 tiny ads.

Changes go through a `Transaction`: it stages new versions of the ads it touches (copies,
so readers never see half a transaction), `prepare` turns them into rows, the store makes
them durable, and only then `apply` swaps them into the table. The table changes only in
`apply`, on the daemon's one event-loop thread.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.schedd import factory_state
from condorx.daemons.schedd.deferral import Rules
from condorx.daemons.schedd.store import CLUSTER_AD, Key, Store, ad_to_blob

NEXT_CLUSTER = "next_cluster"


class EventKind(StrEnum):
    """What happened to a job: each kind's user-log text is `userlog`'s; LEAVE (the job
    left the queue, its last ad with it) goes to the history file, not the log."""

    SUBMIT = "submit"
    EXECUTE = "execute"
    EVICT = "evict"
    SUSPEND = "suspend"
    UNSUSPEND = "unsuspend"
    HOLD = "hold"
    RELEASE = "release"
    ABORT = "abort"
    TERMINATE = "terminate"
    LEAVE = "leave"
    GRID_SUBMIT = "grid_submit"
    GRID_DOWN = "grid_down"
    GRID_UP = "grid_up"


@dataclass
class Event:
    """Something that happened to a job, for its user log and the history file."""

    kind: EventKind
    key: Key
    info: dict[str, Any] = field(default_factory=dict)


class JobQueue:
    def __init__(self, store: Store, deferral: Rules | None = None) -> None:
        self.store = store
        # How jobs entering the queue are deferred (the schedd's configuration).
        self.deferral = deferral if deferral is not None else Rules()
        self.clusters: dict[int, ClassAd] = {}
        self.jobs: dict[Key, ClassAd] = {}
        self.procs: dict[int, set[int]] = {}
        # Jobs by (owner, accounting name, JobStatus), kept as ads are swapped in: the
        # schedd's ads in the collector are made of these many times a second, and a walk
        # of a million-job queue each time would cost more than the rest of its work.
        self.counts: Counter[tuple[str, str, int | None]] = Counter()
        self.next_cluster = store.meta(NEXT_CLUSTER, 1)
        self._load()

    def _load(self) -> None:
        for cluster, proc, ad in self.store.rows():
            if proc == CLUSTER_AD:
                self.clusters[cluster] = ad
                continue
            parent = self.clusters.get(cluster)
            if parent is not None:
                ad.chain(parent)
            self.jobs[(cluster, proc)] = ad
            self.procs.setdefault(cluster, set()).add(proc)
            self.count(ad, 1)

    def count(self, ad: ClassAd, delta: int) -> None:
        """Add `delta` jobs of the ad's owner, accounting name and status to `counts`."""
        status = ad.get("JobStatus")
        owner = str(ad.get("Owner"))
        group = ad.get("AccountingGroup")
        account = group if isinstance(group, str) and group else owner
        key = (owner, account, status if isinstance(status, int) else None)
        n = self.counts[key] + delta
        if n:
            self.counts[key] = n
        else:
            del self.counts[key]

    def __len__(self) -> int:
        return len(self.jobs)

    def get(self, key: Key) -> ClassAd | None:
        return self.jobs.get(key)

    def snapshot(self) -> list[tuple[Key, ClassAd]]:
        """The jobs as they are now, safe to walk while later transactions apply."""
        return list(self.jobs.items())

    def begin(self) -> Transaction:
        return Transaction(self)


class Transaction:
    def __init__(self, queue: JobQueue) -> None:
        self.queue = queue
        self.staged: dict[Key, ClassAd | None] = {}
        self.blobs: dict[Key, bytes] = {}  # rows already packed by the caller
        self.events: list[Event] = []
        self.next_cluster = queue.next_cluster
        self._rows: tuple[list[tuple[Key, bytes]], list[Key], dict[str, int]] | None = None

    # -- reading through the transaction ------------------------------------------------

    def cluster_ad(self, cluster: int) -> ClassAd | None:
        key = (cluster, CLUSTER_AD)
        if key in self.staged:
            return self.staged[key]
        return self.queue.clusters.get(cluster)

    def job(self, key: Key) -> ClassAd | None:
        if key in self.staged:
            return self.staged[key]
        return self.queue.jobs.get(key)

    def keys(self) -> Iterator[Key]:
        yield from self.queue.jobs
        for k, ad in self.staged.items():
            if k[1] != CLUSTER_AD and ad is not None and k not in self.queue.jobs:
                yield k

    # -- writing ------------------------------------------------------------------------

    def new_cluster(self) -> int:
        cluster = self.next_cluster
        self.next_cluster += 1
        return cluster

    def put_cluster(self, cluster: int, ad: ClassAd) -> None:
        self.staged[(cluster, CLUSTER_AD)] = ad

    def put_job(self, key: Key, ad: ClassAd, blob: bytes | None = None) -> None:
        """Stage a proc ad (it is chained to its cluster ad when applied); `blob`, when
        given, is its row already packed."""
        self.staged[key] = ad
        if blob is not None:
            self.blobs[key] = blob

    def set_attr(self, key: Key, name: str, value: Any) -> None:
        """Set an attribute on a proc ad (a copy, staged), or on a cluster ad (proc -1)."""
        ad = self._writable(key)
        ad[name] = value
        self.blobs.pop(key, None)

    def delete_attr(self, key: Key, name: str) -> None:
        ad = self._writable(key)
        if name in ad.own_keys():
            del ad[name]
        self.blobs.pop(key, None)

    def _writable(self, key: Key) -> ClassAd:
        current = self.staged.get(key) if key in self.staged else self._current(key)
        if current is None:
            raise KeyError(key)
        if key not in self.staged or self.staged[key] is None:
            current = current.copy()
            self.staged[key] = current
        return current

    def _current(self, key: Key) -> ClassAd | None:
        if key[1] == CLUSTER_AD:
            return self.queue.clusters.get(key[0])
        return self.queue.jobs.get(key)

    def procs_of(self, cluster: int) -> list[Key]:
        """The cluster's jobs as this transaction leaves them."""
        keys = {(cluster, p) for p in self.queue.procs.get(cluster, ())}
        for key, ad in self.staged.items():
            if key[0] == cluster and key[1] != CLUSTER_AD:
                if ad is None:
                    keys.discard(key)
                else:
                    keys.add(key)
        return sorted(keys)

    def delete_cluster(self, cluster: int) -> None:
        """Take an empty cluster's ad out (a stopped factory's that made no job)."""
        self.staged[(cluster, CLUSTER_AD)] = None

    def delete_job(self, key: Key) -> None:
        """Take a job out of the queue (its cluster ad goes with the last proc)."""
        self.staged[key] = None

    def event(self, kind: EventKind, key: Key, **info: Any) -> None:
        self.events.append(Event(kind, key, info))

    # -- commit -------------------------------------------------------------------------

    def prepare(self) -> None:
        """Turn the staged ads into rows (on the event loop, before the durable write)."""
        put: list[tuple[Key, bytes]] = []
        delete: list[Key] = []
        emptied = self._emptied_clusters()
        for key, ad in self.staged.items():
            if ad is None or (key[1] == CLUSTER_AD and key[0] in emptied):
                delete.append(key)
            else:
                blob = self.blobs.get(key)
                put.append((key, blob if blob is not None else ad_to_blob(ad)))
        for cluster in emptied:
            if (cluster, CLUSTER_AD) not in self.staged:
                delete.append((cluster, CLUSTER_AD))
        meta = {}
        if self.next_cluster != self.queue.next_cluster:
            meta[NEXT_CLUSTER] = self.next_cluster
        self._rows = (put, delete, meta)

    def _emptied_clusters(self) -> set[int]:
        gone: dict[int, int] = {}
        for (cluster, proc), ad in self.staged.items():
            if proc != CLUSTER_AD and ad is None and (cluster, proc) in self.queue.jobs:
                gone[cluster] = gone.get(cluster, 0) + 1
        return {
            c
            for c, n in gone.items()
            if n >= len(self.queue.procs.get(c, ()))
            and not self._adds_to(c)
            and not self._factory_pending(c)
        }

    def _factory_pending(self, cluster: int) -> bool:
        """A job factory keeps its cluster while it has jobs still to make."""
        ad = self.cluster_ad(cluster)
        return ad is not None and factory_state.pending(ad)

    def _adds_to(self, cluster: int) -> bool:
        return any(
            k[0] == cluster and k[1] != CLUSTER_AD and ad is not None
            for k, ad in self.staged.items()
        )

    def write(self) -> None:
        """The durable part: safe to run in a worker thread."""
        if self._rows is None:
            self.prepare()
        assert self._rows is not None
        put, delete, meta = self._rows
        if put or delete or meta:
            self.queue.store.commit(put, delete, meta)

    def clusters_gone(self) -> list[int]:
        """The clusters whose ads this transaction took out (after `prepare`)."""
        assert self._rows is not None
        return [cluster for cluster, proc in self._rows[1] if proc == CLUSTER_AD]

    def apply(self) -> None:
        """Swap the committed ads into the table (on the event loop, after `write`)."""
        q = self.queue
        assert self._rows is not None
        _, deleted, _ = self._rows
        deleted_set = set(deleted)
        for key, ad in self.staged.items():
            if key[1] == CLUSTER_AD and ad is not None and key not in deleted_set:
                q.clusters[key[0]] = ad
                self._rechain(key[0], ad)
        for key, ad in self.staged.items():
            if key[1] == CLUSTER_AD:
                continue
            old = q.jobs.get(key)
            if old is not None:
                q.count(old, -1)
            if ad is None:
                q.jobs.pop(key, None)
                q.procs.get(key[0], set()).discard(key[1])
                continue
            parent = q.clusters.get(key[0])
            if parent is not None:
                ad.chain(parent)
            q.jobs[key] = ad
            q.procs.setdefault(key[0], set()).add(key[1])
            q.count(ad, 1)
        for cluster, proc in deleted:
            if proc == CLUSTER_AD:
                q.clusters.pop(cluster, None)
                q.procs.pop(cluster, None)
        q.next_cluster = self.next_cluster

    def _rechain(self, cluster: int, parent: ClassAd) -> None:
        q = self.queue
        for proc in q.procs.get(cluster, ()):
            key = (cluster, proc)
            if key in self.staged:
                continue
            ad = q.jobs[key]
            q.count(ad, -1)  # the cluster ad may change what its procs say
            ad.chain(parent)
            q.count(ad, 1)
