"""The schedd's answer to its negotiator in one pass in the core (`waiting_groups`): a
cluster's procs are worked out once per kind (what they set of their own where the
first was looked at), so the answer must be the one each proc gets written whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorx.classad import ClassAd, ExprTree
from condorx.language.negotiation import waiting_groups

POOL = [ClassAd('[ Memory = 2048; Requirements = TARGET.Department =!= "x" ]')]
CLUSTER = (
    '[ Owner = "alice"; JobStatus = 1; RequestMemory = 1024; Base = 1; '
    "Need = Base * RequestMemory; Requirements = TARGET.Memory >= Need ]"
)
CONSTRAINT = ExprTree("JobStatus == 1 && Need < 3000")

# What a proc may set of its own: literals and expressions over the cluster's names.
OWN = st.sampled_from(
    [
        "ProcId = 7",
        "RequestMemory = 2048",
        "RequestMemory = 4096",
        "Base = 2",
        "JobStatus = 2",
        'Owner = "bob"',
        'Department = "x"',
        "Need = RequestMemory",
        "Base = RequestMemory / 1024",
        "Unread = 5",
    ]
)


def chained(owns: list[list[str]]) -> list[ClassAd]:
    cluster = ClassAd(CLUSTER)
    procs = []
    for i, own in enumerate(owns):
        ad = ClassAd("[ " + "; ".join([f"ProcId = {i}", *own]) + " ]")
        ad.chain(cluster)
        procs.append(ad)
    return procs


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(OWN, max_size=3), min_size=1, max_size=12), st.data())
def test_chained_procs_are_chosen_and_grouped_as_written_whole(owns, data):
    procs = chained(owns)
    whole = [ad.flatten() for ad in procs]
    skip = data.draw(st.lists(st.booleans(), min_size=len(procs), max_size=len(procs)))
    for constraint in (CONSTRAINT, None):
        got = waiting_groups(procs, skip, constraint, POOL, ["Owner"])
        want = waiting_groups(whole, skip, constraint, POOL, ["Owner"])
        assert got == want


def test_the_constraint_and_skip_choose_and_owners_stay_apart():
    owns = [[], ["JobStatus = 2"], ['Owner = "bob"'], [], ["RequestMemory = 4096"], []]
    skip = [False, False, False, False, False, True]
    assert waiting_groups(chained(owns), skip, CONSTRAINT, POOL, ["Owner"]) == [[0, 3], [2]]
