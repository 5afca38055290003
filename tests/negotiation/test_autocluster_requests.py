"""A schedd's autoclusters (`_core.autoclusters`, over the policies the negotiator sends,
`_core.pool_policies`) stand for its jobs exactly: a cycle over one job per group, each
repeated as many times as its group counts, makes the same matches as a cycle over
every job, up to which of a group's interchangeable jobs gets a slot."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorx import _core
from condorx.classad import ClassAd
from condorx.language.negotiation import Submitter, negotiate

SLOT = st.tuples(
    st.sampled_from([1024, 2048, 4096]),
    st.sampled_from(
        ["true", "TARGET.RequestMemory <= MY.Memory", "TARGET.JobPrio >= 0 && TARGET.Big =!= true"]
    ),
    st.sampled_from(["0", "TARGET.JobPrio", "TARGET.RequestMemory"]),
)
JOB = st.tuples(
    st.sampled_from([512, 1024, 3000]),
    st.sampled_from([0, 1]),
    st.sampled_from(["a", "b", "c"]),  # Args: no slot reads it
    st.booleans(),
)


def slot_ads(specs: list[tuple[int, str, str]]) -> list[ClassAd]:
    return [
        ClassAd(
            f'[ Name = "slot{i}"; State = "Unclaimed"; Memory = {m}; Requirements = {req}; '
            f"Rank = {rank} ]"
        )
        for i, (m, req, rank) in enumerate(specs)
    ]


def job_ads(owner: str, specs: list[tuple[int, int, str, bool]]) -> list[ClassAd]:
    return [
        ClassAd(
            f'[ Owner = "{owner}"; ProcId = {i}; RequestMemory = {m}; JobPrio = {p}; '
            f'Args = "{a}"; Big = {str(big).lower()}; '
            "Requirements = TARGET.Memory >= MY.RequestMemory ]"
        )
        for i, (m, p, a, big) in enumerate(specs)
    ]


def groups(jobs: list[ClassAd], pool: list[ClassAd]) -> list[list[int]]:
    return _core.autoclusters(jobs, _core.pool_policies(pool))


def outcome(cycle, group_of: dict[int, int]) -> list[tuple[str, str, int]]:
    """Who got which slot, each match's job named by its group."""
    return sorted((m.submitter.name, m.slot["Name"], group_of[id(m.job)]) for m in cycle.matches)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(SLOT, min_size=1, max_size=12),
    st.lists(JOB, max_size=15),
    st.lists(JOB, max_size=15),
)
def test_a_cycle_over_autoclusters_makes_the_matches_of_a_cycle_over_every_job(slots, alice, bob):
    pool = slot_ads(slots)
    every = [
        Submitter("alice", 500.0, job_ads("alice", alice)),
        Submitter("bob", 500.0, job_ads("bob", bob)),
    ]
    group_of: dict[int, int] = {}
    requests = []
    for s in every:
        jobs = list(s.jobs)
        one_each: list[ClassAd] = []
        for members in groups(jobs, pool):
            for i in members:
                group_of[id(jobs[i])] = members[0]
            one_each.extend([jobs[members[0]]] * len(members))
        requests.append(Submitter(s.name, s.priority, one_each))
    assert outcome(negotiate(pool, requests), group_of) == outcome(negotiate(pool, every), group_of)


def test_jobs_differing_only_where_no_slot_reads_are_one_group():
    pool = slot_ads([(2048, "TARGET.RequestMemory <= MY.Memory", "0")])
    jobs = job_ads("alice", [(512, 0, "a", False), (512, 1, "b", True), (3000, 0, "a", False)])
    # JobPrio, Args and Big are read by no slot; RequestMemory is.
    assert groups(jobs, pool) == [[0, 1], [2]]


def test_jobs_asking_for_other_sizes_are_never_one_group():
    """A dynamic slot is carved to the size its job asks for: however the slots' policies
    read it, jobs of other requests are matched apart."""
    pool = slot_ads([(4096, "true", "0")])
    jobs = [
        ClassAd(f'[ Owner = "alice"; RequestCpus = {c}; Requirements = true ]') for c in (4, 8, 4)
    ]
    assert groups(jobs, pool) == [[0, 2], [1]]
