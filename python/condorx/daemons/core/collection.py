"""The daemon's garbage collector: tuned for a large, long-lived heap, and accounted.

CPython's cycle collector runs a young collection every 700 net allocations and walks
the whole heap every hundred of those, when the heap has grown by a quarter. A daemon
holding tens of thousands of claims (their tasks, streams and coroutines) churns through
objects that live a job's length: at 30,000 slots and 450 jobs/s, its full collections
ran for 19 s (wall time) of a run in which the schedd used 48 CPU seconds, and 35 s of
the simulator's 133, each a pause of half a second to a second in which no request was
answered.

So a daemon collects young objects ten thousand allocations apart and freezes out of
every walk what it built to start (its modules, configuration and tables, alive for its
whole life).

Beyond the young, it collects nothing on its own: a full walk comes every SWEEP seconds
(`sweep`). What outlives a young collection is a claim's tasks, scopes and streams,
alive for a job's length; CPython would walk each of them again in a middle-aged
collection and in full walks. At 100,000 slots that was the schedd's 118 middle-aged
collections in 13.1 s and 2 full ones in 2.3 s, of its 194 CPU seconds in a turnover
run (the simulator's: 80 in 13.0 s), and not one of those collections found garbage:
the daemons' objects go by reference counting. A cycle that becomes garbage after a
young collection now waits for the next sweep; the account below shows what each kind
of collection finds.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

import trio

log = logging.getLogger("condorx.collection")

# Young collections this many net allocations apart (CPython's default: 700). Older
# generations: never on their own (a count no daemon reaches), but every SWEEP seconds.
YOUNG = 10_000
NEVER = 2**31 - 1
SWEEP = 300.0


class Account:
    """How many collections of each generation ran, the CPU time they took (the thread's:
    a daemon sharing its cores with others would count their turns in wall time), and
    the garbage they found."""

    def __init__(self) -> None:
        self.runs = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self.collected = [0, 0, 0]  # objects found unreachable (cyclic garbage)
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.thread_time()
            return
        generation = info["generation"]
        self.runs[generation] += 1
        self.seconds[generation] += time.thread_time() - self._started
        self.collected[generation] += info["collected"]

    def summary(self) -> str:
        return ", ".join(
            f"generation {g}: {self.runs[g]} in {self.seconds[g]:.2f} s"
            f" ({self.collected[g]} collected)"
            for g in range(3)
        )


account = Account()


def tune() -> None:
    """Set the daemon's collection thresholds, and account for each collection."""
    gc.set_threshold(YOUNG, NEVER, NEVER)
    if account not in gc.callbacks:
        gc.callbacks.append(account)


async def sweep(interval: float = SWEEP) -> None:
    """A full collection every `interval` seconds, for as long as the daemon runs: the
    only one that reaches what outlived a young collection."""
    while True:
        await trio.sleep(interval)
        gc.collect()


def started() -> None:
    """The daemon's start-up is done: what it built lives as long as it does, and no
    full walk need visit it again."""
    gc.collect()
    gc.freeze()


def report() -> None:
    """Log what collection cost this daemon's life (at its end)."""
    log.info("garbage collection: %s", account.summary())
