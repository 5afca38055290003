"""The schedd's autoclusters (`daemons/schedd/autoclusters.py`): a request's groups, and
the job a match for a group goes to."""

from __future__ import annotations

import trio

from condorx.classad import ClassAd, ExprTree
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


def grouped(clusters, jobs, request="c", skip=None, constraint=None):
    keys, ads = [k for k, _ in jobs], [ad for _, ad in jobs]
    skip = skip if skip is not None else [False] * len(jobs)
    return trio.run(clusters.group, keys, ads, skip, constraint, POOL, request)


def test_each_owners_alike_jobs_are_one_group_in_queue_order():
    clusters = Autoclusters()
    groups = grouped(clusters, JOBS)
    assert [(first, count) for first, count, _ in groups] == [
        ((1, 0), 3),
        ((1, 1), 1),
        ((2, 0), 1),
    ]
    assert groups[1][2]["RequestMemory"] == 4096


def test_a_match_for_a_group_goes_to_its_next_waiting_job():
    clusters = Autoclusters()
    grouped(clusters, JOBS)
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
        grouped(clusters, JOBS)
    assert len(clusters.kept) == 1
    for i in range(KEPT + 5):  # as many negotiators' constraints: only the newest kept
        grouped(clusters, JOBS, f"c{i}")
    assert len(clusters.kept) == KEPT and f"c{KEPT + 4}" in clusters.kept


def test_only_jobs_not_skipped_that_meet_the_constraint_are_grouped():
    clusters = Autoclusters()
    skip = [True, False, False, False, False]  # 1.0 matched or running
    only_alice = ExprTree('Owner == "alice"')
    groups = grouped(clusters, JOBS, skip=skip, constraint=only_alice)
    assert [(first, count) for first, count, _ in groups] == [((1, 1), 1), ((1, 2), 2)]
    assert clusters.pick((1, 2), lambda k: True) == (1, 2)
    assert clusters.pick((1, 2), lambda k: True) == (2, 1)


def test_a_clusters_procs_are_grouped_as_their_flattened_ads_are():
    # Procs chained to their cluster's ad are worked out once per kind (in the core);
    # the groups are those of the same procs written whole.
    cluster = ClassAd(
        '[ Owner = "alice"; Requirements = TARGET.Memory >= RequestMemory; '
        "RequestMemory = 1024; JobStatus = 1 ]"
    )
    owns = [
        "[ ProcId = 0 ]",
        "[ ProcId = 1; RequestMemory = 4096 ]",
        "[ ProcId = 2 ]",
        '[ ProcId = 3; Owner = "bob" ]',
        "[ ProcId = 4; Requirements = TARGET.Memory >= 2 * RequestMemory ]",
        "[ ProcId = 5; RequestMemory = 4096 ]",
        "[ ProcId = 6; JobStatus = 2 ]",
        "[ ProcId = 7; RequestMemory = RequestCpus * 1024 ]",
        "[ ProcId = 8 ]",
    ]
    procs = []
    for i, text in enumerate(owns):
        ad = ClassAd(text)
        ad.chain(cluster)
        procs.append(((1, i), ad))
    whole = [(k, ad.flatten()) for k, ad in procs]
    idle = ExprTree("JobStatus == 1")
    chained = grouped(Autoclusters(), procs, constraint=idle)
    flat = grouped(Autoclusters(), whole, constraint=idle)
    assert [(f, n) for f, n, _ in chained] == [(f, n) for f, n, _ in flat]
    assert [(f, n) for f, n, _ in chained] == [
        ((1, 0), 3),
        ((1, 1), 2),
        ((1, 3), 1),
        ((1, 4), 1),
        ((1, 7), 1),
    ]
