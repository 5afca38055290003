"""A daemon's garbage collector (`daemons.core.collection`): young collections far apart,
no older ones but a full walk every SWEEP seconds, start-up frozen out of the walks, and
each collection accounted."""

from __future__ import annotations

import gc
import weakref

import trio
import trio.testing

from condorx.daemons.core import collection


def test_a_tuned_daemon_collects_young_objects_far_apart_and_counts_each_collection():
    before = gc.get_threshold()
    try:
        collection.tune()
        assert gc.get_threshold() == (collection.YOUNG, collection.NEVER, collection.NEVER)
        runs, seconds = list(collection.account.runs), list(collection.account.seconds)
        gc.collect(0)
        gc.collect()
        assert collection.account.runs[0] == runs[0] + 1
        assert collection.account.runs[2] == runs[2] + 1
        assert collection.account.seconds[2] >= seconds[2]
        assert "generation 2: " in collection.account.summary()
    finally:
        gc.set_threshold(*before)
        gc.callbacks.remove(collection.account)


def test_what_start_up_built_is_frozen_out_of_every_walk():
    before = gc.get_freeze_count()
    try:
        kept = [[i] for i in range(1000)]  # tracked objects made "at start-up"
        collection.started()
        assert gc.get_freeze_count() >= before + len(kept)
        walked = {id(o) for o in gc.get_objects()}  # the frozen are in no generation
        assert not any(id(k) in walked for k in kept)
    finally:
        gc.unfreeze()


def test_a_tuned_daemon_runs_young_collections_alone():
    before = gc.get_threshold()
    try:
        collection.tune()
        runs = list(collection.account.runs)
        # Kept alive, so each counts: 15 young collections' worth, where CPython would
        # have run a middle-aged collection every 10.
        kept = [[i] for i in range(15 * collection.YOUNG)]
        assert collection.account.runs[0] >= runs[0] + 14
        assert collection.account.runs[1:] == runs[1:]
        del kept
    finally:
        gc.set_threshold(*before)
        gc.callbacks.remove(collection.account)


class _Node:
    """A cycle of one: only a collection frees it."""

    def __init__(self) -> None:
        self.me = self


def test_the_sweep_frees_a_cycle_that_outlived_a_young_collection_at_its_time():
    freed: list[float] = []

    def survivor() -> weakref.ref[_Node]:
        node = _Node()
        ref = weakref.ref(node, lambda _: freed.append(trio.current_time()))
        gc.collect(0)  # alive here: it moves past the young generation
        return ref  # and is garbage once this returns

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(collection.sweep, 30.0)
            first = survivor()
            await trio.sleep(45.0)
            second = survivor()
            await trio.sleep(45.0)
            assert first() is None and second() is None
            nursery.cancel_scope.cancel()

    before = gc.get_threshold()
    try:
        collection.tune()
        trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    finally:
        gc.set_threshold(*before)
        gc.callbacks.remove(collection.account)
    assert freed == [30.0, 60.0]
