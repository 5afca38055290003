"""The job queue's one owner: every write goes through `change`, every read through the
ledger's reads, and every committed change is news on one stream.

`change(fn)` is the only way to write. `fn` stages its changes in a transaction; the
changes that arrive while a commit is being made durable wait for the next one and go
in together (one fsync for a burst of shadow reports, submits and removes), and each
caller gets its result only once its batch is durable. A change is a function of the
transaction alone: when one change of a batch raises, the batch is staged again without
it, so a change may run more than once and must keep no state of its own across runs.

A commit is: what leaving jobs hand over written (`departures`), the history file and
the database written in a worker thread, the table swapped, the news sent, then the
user logs written (as HTCondor's schedd writes events after its queue transaction) and
the spool directories of jobs that left removed.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import trio

from condorx.classad import ClassAd
from condorx.daemons.schedd import departures, spool, userlog
from condorx.daemons.schedd.commit_account import CommitAccount
from condorx.daemons.schedd.committed import Committed
from condorx.daemons.schedd.queue import EventKind, JobQueue, Transaction
from condorx.daemons.schedd.store import Key
from condorx.errors import CondorxError
from condorx.language.history import Rotation, append

log = logging.getLogger("condorx.schedd")

T = TypeVar("T")


class LedgerClosed(CondorxError):
    """The ledger stopped (the schedd is shutting down) before a change was committed."""


@dataclass(frozen=True)
class Files:
    """Where a commit writes besides the database: the history file (and how it
    rotates) and the spool that jobs leaving the queue take their directories from."""

    history: Path
    rotation: Rotation
    spool: Path


@dataclass(eq=False)
class _Pending(Generic[T]):
    """A change waiting for its batch's commit, and the one task that waits for it."""

    fn: Callable[[Transaction], T]
    result: Any = None
    error: BaseException | None = None
    done: bool = False
    _waiter: trio.lowlevel.Task | None = None
    # For a change no task waits for (`Ledger.stage`): told why it was not committed.
    on_error: Callable[[BaseException], None] | None = None
    asked: float = field(default_factory=time.monotonic)

    def finish(self) -> None:
        self.done = True
        waiter, self._waiter = self._waiter, None
        if waiter is not None:
            trio.lowlevel.reschedule(waiter)
        elif self.error is not None and self.on_error is not None:
            self.on_error(self.error)

    async def wait(self) -> None:
        """Until the change is committed or refused; cancellation waits for that too (a
        caller must learn whether its change is in). Not a shielded wait on an Event:
        their scope, status and parking lot cost more than the rest of a small change,
        and a schedd makes several a job."""
        if self.done:
            await trio.lowlevel.cancel_shielded_checkpoint()
            return
        self._waiter = trio.lowlevel.current_task()
        await trio.lowlevel.wait_task_rescheduled(lambda _: trio.lowlevel.Abort.FAILED)


class Ledger:
    def __init__(self, queue: JobQueue, files: Files) -> None:
        self.queue = queue
        self.files = files
        self.address = ""  # the schedd's, for user-log events; set once it listens
        # Called at every commit (the advertiser's poke: the schedd's ads changed).
        self.on_commit: Callable[[], None] = lambda: None
        # Run last in every batch's transaction (the job factories make their next jobs);
        # True when it wants another commit even with nothing else to do.
        self.top_up: Callable[[Transaction], bool] = lambda txn: False
        # Told of every transaction once it is applied.
        self.on_applied: Callable[[Transaction], None] = lambda txn: None
        self._pending: list[_Pending[Any]] = []
        self._kick = trio.Event()
        self._again = False
        self._closed = False
        self._news_out, self._news_in = trio.open_memory_channel[Committed](math.inf)
        self.account = CommitAccount()

    # -- reading --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.queue)

    def get(self, key: Key) -> ClassAd | None:
        return self.queue.get(key)

    def snapshot(self) -> list[tuple[Key, ClassAd]]:
        """The jobs as they are now, safe to walk across later commits."""
        return self.queue.snapshot()

    def keys_and_ads(self) -> tuple[list[Key], list[ClassAd]]:
        """The jobs as they are now, as two lists in queue order (made at C speed: a
        million jobs walked in Python cost a negotiator's cycle most of a second)."""
        jobs = self.queue.jobs
        return list(jobs), list(jobs.values())

    def cluster_ads(self) -> list[tuple[Key, ClassAd]]:
        """Each cluster's own ad, keyed (cluster, -1)."""
        return [((c, -1), ad) for c, ad in self.queue.clusters.items()]

    def counts(self) -> Counter[tuple[str, str, int | None]]:
        """How many jobs each (owner, accounting name, JobStatus) has now."""
        return self.queue.counts

    def procs(self, cluster: int) -> list[int]:
        """The cluster's proc ids in the queue, in order."""
        return sorted(p for p in self.queue.procs.get(cluster, ()) if p >= 0)

    @property
    def news(self) -> trio.MemoryReceiveChannel[Committed]:
        """Every commit's news (jobs become idle, stopped, grid jobs touched), in order."""
        return self._news_in

    # -- writing --------------------------------------------------------------------------

    async def change(self, fn: Callable[[Transaction], T]) -> T:
        """Stage `fn` in the next batch; its result once the batch is durable. Raises
        what `fn` raised (its changes are then not committed), or the commit's error."""
        if self._closed:
            raise LedgerClosed("the job queue is closed")
        item: _Pending[T] = _Pending(fn)
        self._pending.append(item)
        self._kick.set()
        # Not cancelled: a caller must learn whether its change is in (its files are
        # kept or removed by that). `run` ends every wait as it stops.
        await item.wait()
        if item.error is not None:
            raise item.error
        return item.result  # type: ignore[no-any-return]

    def stage(
        self, fn: Callable[[Transaction], object], on_error: Callable[[BaseException], None]
    ) -> None:
        """Stage `fn` in the next batch, in order with every other change, and go on
        without waiting for its commit; `on_error` hears why it was not committed. For
        a change whose caller has nothing to do once it is in (a job's end, after which
        its claim starts the next job in the same batch)."""
        if self._closed:
            on_error(LedgerClosed("the job queue is closed"))
            return
        self._pending.append(_Pending(fn, on_error=on_error))
        self._kick.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Commit batches until cancelled."""
        task_status.started()
        batch: list[_Pending[Any]] = []
        try:
            while True:
                await self._kick.wait()
                self._kick = trio.Event()
                batch, self._pending = self._pending, []
                await self._commit_batch(batch)
                batch = []
        finally:
            self._closed = True
            for item in (*batch, *self._pending):
                if not item.done:
                    item.error = item.error or LedgerClosed("the schedd stopped")
                    item.finish()

    async def _commit_batch(self, batch: list[_Pending[Any]]) -> None:
        began = time.monotonic()
        txn = self._stage(batch)
        staged = [item for item in batch if item.error is None]
        try:
            await self._commit(txn)
        except OSError as e:
            log.error("cannot commit %d queue changes: %s", len(staged), e)
            for item in staged:
                item.error = e
        for item in batch:
            item.finish()
        ended = time.monotonic()
        self.account.add(len(batch), ended - began, sum(ended - item.asked for item in batch))
        if self.account.due():
            log.info("%s", self.account.line())
            self.account = CommitAccount(self.account.period)

    def _stage(self, batch: list[_Pending[Any]]) -> Transaction:
        """One transaction with every change of the batch that does not raise, and then
        the jobs the factories make."""
        topping = True
        while True:
            txn = self.queue.begin()
            for item in batch:
                if item.error is not None:
                    continue
                try:
                    item.result = item.fn(txn)
                except CondorxError as e:  # refused, e.g. the job left meanwhile
                    item.error = e
                    break
                except Exception as e:  # a bug in one change must not stop commits
                    log.exception("a queue change failed")
                    item.error = e
                    break
            else:
                self._again = False
                if topping:
                    try:
                        self._again = self.top_up(txn)
                    except Exception:  # a factory's bug must not stop commits
                        log.exception("making the job factories' jobs failed")
                        topping = False
                        continue  # stage the batch again, without the factories' jobs
                return txn

    async def _commit(self, txn: Transaction) -> None:
        txn.prepare()
        news = Committed.of(txn, self.queue)
        leaving = [ev.info["ad"] for ev in txn.events if ev.kind is EventKind.LEAVE]
        departing = departures.departing(txn, self.queue, self.files.spool)

        def durable() -> None:
            departing.hand_over()
            append(self.files.history, leaving, self.files.rotation)
            txn.write()

        await trio.to_thread.run_sync(durable)
        txn.apply()
        self.on_applied(txn)
        if self._again:
            self._kick.set()
        self.on_commit()
        if news:
            self._news_out.send_nowait(news)
        await self._user_log(txn)
        if departing.directories:  # jobs that left take their spool directories with them
            await trio.to_thread.run_sync(spool.remove_all, departing.directories)

    async def _user_log(self, txn: Transaction) -> None:
        head = userlog.timestamp(time.time())
        entries: list[tuple[Path, str, object]] = []
        gone = {ev.key: ev.info["ad"] for ev in txn.events if ev.kind is EventKind.LEAVE}
        for ev in txn.events:
            ad = self.queue.get(ev.key) or gone.get(ev.key)
            if ad is None or not (ad.get("UserLog") or ad.get("DAGManNodesLog")):
                continue
            text = userlog.format_event(ev, head, self.address, ad.get("SubmitEventNotes"))
            if text:
                for path in userlog.log_paths(ad, userlog.number_of(text)):
                    entries.append((path, text, ad.get("Owner")))
        if entries:
            for err in await trio.to_thread.run_sync(userlog.write_events, entries):
                log.warning("%s", err)
