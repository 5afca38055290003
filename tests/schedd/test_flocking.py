"""Each submitter's flock level, as HTCondor's schedd moves it (schedd.cpp:
negotiationFinished, count_jobs' flock levels, flockCommunicationCheck), on exact times."""

from __future__ import annotations

from condorx.daemons.schedd.flocking import Flocking, hosts
from condorx.language.config import Config

THREE = "FLOCK_TO = cm1, cm2:9620, cm3\nSCHEDD_INTERVAL = 10\n"


def flocking(extra: str = "") -> Flocking:
    return Flocking(Config.from_text(THREE + extra))


def test_the_lists_name_central_managers_with_htcondors_port():
    assert hosts("cm1, cm2:9620 <127.0.0.1:5?noUDP>") == ["cm1:9618", "cm2:9620", "127.0.0.1:5"]
    f = flocking()
    assert f.pools == ["cm1:9618", "cm2:9620", "cm3:9618"] and f.max_level == 3
    assert [f.level_of(p) for p in ("", "cm2:9620", "cm3:9618", "other:1")] == [0, 2, 3, 0]


def test_collector_and_negotiator_lists_of_other_sizes_disable_flocking():
    f = flocking("FLOCK_NEGOTIATOR_HOSTS = cm1\n")
    assert not f.enabled() and f.max_level == 0


def test_an_unsatisfied_submitter_moves_down_the_list_and_a_satisfied_one_back():
    f = flocking()
    f.negotiated("u", "", False, 100.0)  # the local pool left it unsatisfied
    assert f.reach["u"].level == 1
    f.negotiated("u", "cm1:9618", False, 101.0)
    f.negotiated("u", "cm2:9620", False, 102.0)
    f.negotiated("u", "cm3:9618", False, 103.0)
    assert f.reach["u"].level == 3  # no further than the list
    f.negotiated("u", "cm2:9620", True, 104.0)  # served there: the pools past it go
    assert f.reach["u"].level == 2
    f.negotiated("u", "", True, 105.0)
    assert f.reach["u"].level == 0


def test_an_unsatisfying_pool_below_the_level_changes_nothing():
    f = flocking()
    f.negotiated("u", "", False, 0.0)
    f.negotiated("u", "cm1:9618", False, 1.0)
    assert (f.reach["u"].level, f.reach["u"].served) == (2, 1.0)
    f.negotiated("u", "", False, 5.0)  # the local pool again: not where it stands
    assert (f.reach["u"].level, f.reach["u"].served) == (2, 1.0)


def test_flock_increment_and_min_flock_level():
    f = flocking("FLOCK_INCREMENT = 2\nMIN_FLOCK_LEVEL = 1\n")
    assert f.of("u", 0.0).level == 1
    f.negotiated("u", "cm1:9618", False, 1.0)
    assert f.reach["u"].level == 3
    f.negotiated("u", "", True, 2.0)  # satisfied locally: back no further than the minimum
    assert f.reach["u"].level == 1


def test_no_negotiation_for_two_intervals_moves_an_idle_submitter_on():
    f = flocking()
    f.negotiated("u", "", True, 100.0)
    f.tick({"u": 3}, 120.0)  # exactly two SCHEDD_INTERVALs: not yet
    assert f.reach["u"].level == 0
    f.tick({"u": 3}, 120.5)
    assert (f.reach["u"].level, f.reach["u"].served) == (1, 120.5)
    f.tick({"u": 0}, 200.0)  # nothing idle: nothing to wait for
    assert (f.reach["u"].level, f.reach["u"].served) == (1, 200.0)
    f.tick({"u": 3}, 220.0)
    assert f.reach["u"].level == 1


def test_a_pool_that_cannot_be_reached_is_passed_over_once():
    f = flocking()
    f.negotiated("u", "", False, 0.0)
    f.sent()  # its ad went out at level 1
    f.unreachable("u", 1)
    assert f.reach["u"].level == 2
    f.unreachable("u", 1)  # the same round's failure again: not another level
    assert f.reach["u"].level == 2
    f.unreachable("u", 2)  # not yet sent at 2
    assert f.reach["u"].level == 2


def test_what_each_pools_ad_says_is_idle():
    f = flocking()
    f.negotiated("u", "", False, 0.0)  # reaches cm1
    assert f.idle_for("u", 1, 5, 0) == 5
    assert f.idle_for("u", 2, 5, 0) is None  # not that far
    assert f.idle_for("u", 2, 5, 2) == 0  # but its jobs run there: none idle for it
    f.sent()
    f.negotiated("u", "cm1:9618", True, 1.0)
    f.negotiated("u", "", True, 2.0)  # back home: cm1 hears it has nothing idle
    assert f.reach["u"].level == 0
    assert f.idle_for("u", 1, 5, 1) == 0
    assert f.idle_for("u", 1, 5, 0) is None
    assert f.idle_for("other", 1, 5, 0) is None
