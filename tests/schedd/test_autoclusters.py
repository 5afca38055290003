"""The schedd's autoclusters (`daemons/schedd/autoclusters.py`): a request's groups, and
the job a match for a group goes to."""

from __future__ import annotations

import trio

from condorx.classad import ClassAd
from condorx.daemons.schedd.autoclusters import KEPT, Autoclusters

POOL = [ClassAd("[ Requirements = TARGET.RequestMemory <= 2048 ]")]


def job(owner: str, memory: int) -> ClassAd:
    return ClassAd(f'[ Owner = "{owner}"; RequestMemory = {memory}; Requirements = true ]')


JOBS = [
    ((1, 0), job("alice", 1024)),
    ((1, 1), job("alice", 4096)),
    ((1, 2), job("alice", 1024)),
    ((2, 0), job("bob", 1024)),
    ((2, 1), job("alice", 1024)),
]


def test_each_owners_alike_jobs_are_one_group_in_queue_order():
    clusters = Autoclusters()
    groups = trio.run(clusters.group, JOBS, POOL, "c")
    assert [(first, count) for first, count, _ in groups] == [
        ((1, 0), 3),
        ((1, 1), 1),
        ((2, 0), 1),
    ]
    assert groups[1][2]["RequestMemory"] == 4096


def test_a_match_for_a_group_goes_to_its_next_waiting_job():
    clusters = Autoclusters()
    trio.run(clusters.group, JOBS, POOL, "c")
    taken = {(1, 0)}  # matched already (by an earlier match of this cycle, say)
    picks = []
    for _ in range(3):
        key = clusters.pick((1, 0), lambda k: k not in taken)
        picks.append(key)
        if key is not None:
            taken.add(key)
    assert picks == [(1, 2), (2, 1), None]  # alice's two others, then none left
    # A job of no group known (the schedd restarted since): itself, if it waits.
    assert clusters.pick((9, 9), lambda k: True) == (9, 9)
    assert clusters.pick((9, 9), lambda k: False) is None


def test_a_new_request_replaces_the_groups_of_the_last_one_like_it():
    clusters = Autoclusters()
    for _ in range(3):
        trio.run(clusters.group, JOBS, POOL, "c")
    assert len(clusters.kept) == 1
    for i in range(KEPT + 5):  # as many negotiators' constraints: only the newest kept
        trio.run(clusters.group, JOBS, POOL, f"c{i}")
    assert len(clusters.kept) == KEPT and f"c{KEPT + 4}" in clusters.kept
