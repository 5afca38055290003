"""The daemon's garbage collector: tuned for a large, long-lived heap, and accounted.

CPython's cycle collector runs a young collection every 700 net allocations and walks
the whole heap every hundred of those, when the heap has grown by a quarter. A daemon
holding tens of thousands of claims (their tasks, streams and coroutines) churns through
objects that live a job's length: at 30,000 slots and 450 jobs/s, full collections took
19 of the schedd's 48 CPU seconds and 35 of the simulator's 133, each a pause of half a
second to a second in which no request was answered.

So a daemon collects young objects ten thousand allocations apart (cycles are rare in
its steady work: most objects go by reference counting), which makes the full walks
fourteen times rarer too; and what it built to start (its modules, configuration and
tables, alive for its whole life) is frozen out of every walk.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

log = logging.getLogger("condorx.collection")

# Young collections this many net allocations apart (CPython's default: 700); the older
# generations keep their defaults, counted in young collections.
YOUNG = 10_000


class Account:
    """How many collections of each generation ran, and how long they took."""

    def __init__(self) -> None:
        self.runs = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        generation = info["generation"]
        self.runs[generation] += 1
        self.seconds[generation] += time.perf_counter() - self._started

    def summary(self) -> str:
        return ", ".join(
            f"generation {g}: {self.runs[g]} in {self.seconds[g]:.2f} s" for g in range(3)
        )


account = Account()


def tune() -> None:
    """Set the daemon's collection thresholds, and account for each collection."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG, older, oldest)
    if account not in gc.callbacks:
        gc.callbacks.append(account)


def started() -> None:
    """The daemon's start-up is done: what it built lives as long as it does, and no
    full walk need visit it again."""
    gc.collect()
    gc.freeze()


def report() -> None:
    """Log what collection cost this daemon's life (at its end)."""
    log.info("garbage collection: %s", account.summary())
