"""Which idle jobs the negotiator offers to slots."""

from __future__ import annotations

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.negotiator.service import eligible_constraint


def offered(**job: object) -> bool:
    ad = ClassAd({"JobStatus": 1, **job})
    return ExprTree(eligible_constraint(300)).eval(scope=ad) is True


def test_vanilla_is_offered_grid_routed_and_parallel_are_not():
    assert offered(JobUniverse=5)
    assert not offered(JobUniverse=9)  # the gridmanager's
    assert not offered(JobUniverse=5, Managed="External")  # the router's
    # machine_count slots at once need a dedicated scheduler: it waits, never runs on one
    assert not offered(JobUniverse=11, MinHosts=4, MaxHosts=4)
    assert not offered(JobUniverse=5, JobStatus=5)
