"""The jobs this pool's slots run have one definition (`condorx.daemons.core.matchable`): the
negotiator's constraint and a reused claim's test of an ad answer alike, for every kind
of job, and a parallel job is taken by neither (it waits for a dedicated scheduler)."""

from __future__ import annotations

import itertools

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.core.matchable import CONSTRAINT, runs_here


def test_the_constraint_and_the_test_of_an_ad_agree():
    kinds = itertools.product(
        (1, 2, 5),  # Idle, Running, Held
        (None, "External", "ScheddDone"),  # Managed
        (5, 9, 11, 12),  # vanilla, grid, parallel, local
    )
    seen = set()
    for status, managed, universe in kinds:
        ad = ClassAd({"JobStatus": status, "JobUniverse": universe})
        if managed is not None:
            ad["Managed"] = managed
        verdict = ExprTree(CONSTRAINT).eval(scope=ad) is True
        assert runs_here(ad) == verdict, (status, managed, universe)
        seen.add(verdict)
        if universe == 11:
            assert not verdict  # machine_count slots at once: not on one claim
    assert seen == {True, False}
