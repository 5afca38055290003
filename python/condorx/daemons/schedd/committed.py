"""What a committed transaction did, as those who follow the queue need to know it: jobs
that became Idle (submitted, released, requeued: the shadows may reuse a claim for them,
and the negotiator should look), jobs held or removed (a run of theirs must stop), and
whether a grid job changed (the gridmanager has work).

The schedd computes one `Committed` per transaction from the transaction itself and sends
it down a stream that the follow-ups read, after the queue lock is released, so no
handler has to remember them and none runs while the queue is locked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from condorx.classad import ClassAd
from condorx.daemons.schedd.queue import EventKind, JobQueue, Transaction
from condorx.daemons.schedd.store import Key
from condorx.language.attrs import JobStatus, Universe

# The events of a job that is held or removed (abort: condor_rm, a policy's remove).
_STOPPING = frozenset({EventKind.HOLD, EventKind.ABORT})


@dataclass(frozen=True)
class Committed:
    idle: tuple[Key, ...] = ()
    stopped: tuple[Key, ...] = ()
    grid: bool = False

    @classmethod
    def of(cls, txn: Transaction, queue: JobQueue) -> Committed:
        """Read before the transaction applies: its staged ads against the queue's."""
        read = _Reader(txn, queue)
        idle = []
        for key, new in txn.staged.items():
            if key[1] < 0 or new is None:
                continue  # a cluster ad, or a job leaving
            if read.value(key, new, "JobStatus") == JobStatus.IDLE:
                old = queue.get(key)
                if old is None or JobStatus.of(old) != JobStatus.IDLE:
                    idle.append(key)
        stopped = tuple(dict.fromkeys(ev.key for ev in txn.events if ev.kind in _STOPPING))
        # Only a grid job that became Idle, or was held or removed, is news to the
        # gridmanager: its own updates of the jobs it watches must not wake it again.
        grid = any(read.is_grid(key) for key in (*idle, *stopped))
        return cls(tuple(idle), stopped, grid)

    def __bool__(self) -> bool:
        return bool(self.idle or self.stopped or self.grid)

    @classmethod
    def merged(cls, batch: Iterable[Committed]) -> Committed:
        """Several commits' worth as one (a burst of commits, followed up once)."""
        idle: dict[Key, None] = {}
        stopped: dict[Key, None] = {}
        grid = False
        for c in batch:
            idle.update(dict.fromkeys(c.idle))
            stopped.update(dict.fromkeys(c.stopped))
            grid = grid or c.grid
        return cls(tuple(idle), tuple(stopped), grid)


class _Reader:
    """Attributes of staged proc ads. A new proc is chained to its cluster ad only when
    the transaction applies, so what it does not hold is read from its cluster's ad, once
    per cluster (a 100,000-proc submission reads its cluster's JobUniverse once)."""

    def __init__(self, txn: Transaction, queue: JobQueue) -> None:
        self.txn, self.queue = txn, queue
        self.clusters: dict[tuple[int, str], object] = {}

    def value(self, key: Key, ad: ClassAd, name: str) -> object:
        if name in ad:
            return ad[name]
        if (key[0], name) not in self.clusters:
            parent = self.txn.cluster_ad(key[0])
            self.clusters[key[0], name] = parent.get(name) if parent is not None else None
        return self.clusters[key[0], name]

    def is_grid(self, key: Key) -> bool:
        ad = self.txn.staged.get(key) or self.queue.get(key)
        return ad is not None and self.value(key, ad, "JobUniverse") == Universe.GRID
