"""A daemon's garbage collector (`daemons.core.collection`): young collections far apart,
start-up frozen out of the full walks, and each collection accounted."""

from __future__ import annotations

import gc

from condorx.daemons.core import collection


def test_a_tuned_daemon_collects_young_objects_far_apart_and_counts_each_collection():
    before = gc.get_threshold()
    try:
        collection.tune()
        assert gc.get_threshold() == (collection.YOUNG, before[1], collection.OLDEST)
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
