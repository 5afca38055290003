"""What a daemon's tasks are waiting on, written to its log when it gets SIGUSR1: a
daemon that has stalled shows where (as HTCondor's daemons answer condor_squawk), and
what garbage collection has cost it so far.

Tasks waiting at the same place are counted together: a schedd holding 30,000 claims
prints a few dozen lines, not 30,000 stacks."""

from __future__ import annotations

import logging
import signal
from collections import Counter
from types import AsyncGeneratorType, CoroutineType, FrameType, GeneratorType
from typing import Any

import trio

from condorx.daemons.core import collection, memory_sites

log = logging.getLogger("condorx.tasks")
# What `_frames` walks through: an awaitable of any other kind ends the walk.
_WALKED = (CoroutineType, GeneratorType, AsyncGeneratorType)


def _frames(coro: Any) -> list[FrameType]:
    """The frames a task's coroutine is suspended in, outermost first."""
    out: list[FrameType] = []
    while coro is not None:
        if isinstance(coro, CoroutineType):
            frame, coro = coro.cr_frame, coro.cr_await
        elif isinstance(coro, GeneratorType):
            frame, coro = coro.gi_frame, coro.gi_yieldfrom
        elif isinstance(coro, AsyncGeneratorType):
            frame, coro = coro.ag_frame, coro.ag_await
        else:
            break
        if frame is None:
            break
        out.append(frame)
        if coro is not None and not isinstance(coro, _WALKED):
            # Awaiting an async generator's step (an `async with` of an
            # asynccontextmanager): the generator is its context manager's.
            gen = getattr(frame.f_locals.get("self"), "gen", None)
            coro = gen if isinstance(gen, AsyncGeneratorType) else None
    return out


def _where(task: trio.lowlevel.Task) -> str:
    return " > ".join(
        f"{f.f_code.co_qualname} ({f.f_code.co_filename.rsplit('/', 1)[-1]}:{f.f_lineno})"
        for f in _frames(task.coro)
    )


def stacks() -> Counter[str]:
    """Each place a task of this run waits, and how many wait there."""
    found: Counter[str] = Counter()
    todo = [trio.lowlevel.current_root_task()]
    while todo:
        task = todo.pop()
        if task is None:
            continue
        children = [c for n in task.child_nurseries for c in n.child_tasks]
        if not children:
            found[_where(task)] += 1
        todo.extend(children)
    return found


async def on_signal() -> None:
    """Log where every task waits, each time SIGUSR1 comes; until cancelled."""
    with trio.open_signal_receiver(signal.SIGUSR1) as signals:
        async for _ in signals:
            found = stacks()
            log.warning("%d tasks, waiting at %d places:", found.total(), len(found))
            for where, n in found.most_common():
                log.warning("%7d  %s", n, where)
            log.warning("garbage collection so far: %s", collection.account.summary())
            for line in memory_sites.lines():
                log.warning("%s", line)
