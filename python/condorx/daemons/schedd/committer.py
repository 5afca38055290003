"""Group commit for the shadows' reports: the job starts and exits that arrive while a
commit is being made durable wait for the next one, and go in together.

With 16 slots finishing jobs every few milliseconds, one fsync per report would be the
schedd's ceiling; batching makes it one fsync per batch, and acknowledges each report only
once its batch is durable, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from condorx.daemons.schedd.queue import JobQueue, Transaction
from condorx.errors import CondorxError

log = logging.getLogger("condorx.schedd")


@dataclass
class _Pending:
    change: Callable[[Transaction], Any]
    done: trio.Event = field(default_factory=trio.Event)
    result: Any = None
    error: BaseException | None = None


class CommitHost(Protocol):
    """The queue the batches change, its lock, and how a transaction is made durable."""

    queue: JobQueue
    lock: trio.Lock

    async def commit(self, txn: Transaction) -> None: ...


class Committer:
    def __init__(self, schedd: CommitHost) -> None:
        self.schedd = schedd
        self.pending: list[_Pending] = []
        self.kick = trio.Event()

    async def run(self, change: Callable[[Transaction], Any]) -> Any:
        """Apply `change` in the next batch; returns its result once the batch is durable."""
        item = _Pending(change)
        self.pending.append(item)
        self.kick.set()
        await item.done.wait()
        if item.error is not None:
            raise item.error
        return item.result

    async def loop(self) -> None:
        while True:
            await self.kick.wait()
            self.kick = trio.Event()
            async with self.schedd.lock:
                batch, self.pending = self.pending, []
                txn = self.schedd.queue.begin()
                for item in batch:
                    try:
                        item.result = item.change(txn)
                    except CondorxError as e:  # e.g. the job left the queue meanwhile
                        item.error = e
                    except Exception as e:  # a bug in one change must not stop commits
                        log.exception("a queue change failed")
                        item.error = e
                try:
                    await self.schedd.commit(txn)
                except OSError as e:
                    log.error("cannot commit %d job updates: %s", len(batch), e)
                    for item in batch:
                        item.error = item.error or e
            for item in batch:
                item.done.set()
