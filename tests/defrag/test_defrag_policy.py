"""condor_defrag's rules on exact times (HTCondor's defrag.cpp): the draining rate spread
over the polls, what is left over carried to the hour and the day (prorated when they
begin between polls), when nothing is drained, and which machines are chosen."""

from __future__ import annotations

import random

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.defrag import policy
from condorx.daemons.defrag.policy import DAY, HOUR, Rates


def drains_over(rates: Rates, interval: int, start: int, seconds: int) -> list[tuple[int, int]]:
    """(time, how many) of each poll that drains, polling every `interval` from `start`."""
    out, prev = [], 0
    for now in range(start, start + seconds, interval):
        n = rates.to_drain(prev, now, interval)
        prev = now
        if n:
            out.append((now, n))
    return out


def test_the_rate_as_whole_drains_a_poll_an_hour_and_a_day():
    assert Rates.of(360, 10) == Rates(360, 1, 0, 0)  # defrag.run's: one a poll
    assert Rates.of(1, 600) == Rates(1, 0, 1, 0)  # one an hour
    assert Rates.of(7, 600) == Rates(7, 1, 1, 0)  # 1 a poll (6 an hour), 1 more an hour
    assert Rates.of(0.5, 600) == Rates(0.5, 0, 0, 12)  # twelve a day, at the day's turn
    assert Rates.of(10, 7200) == Rates(0, 20, 0, 0)  # polls longer than an hour


def test_one_an_hour_drains_at_the_first_poll_of_each_hour():
    day = 20_000 * DAY  # a midnight
    polls = drains_over(Rates.of(1, 600), 600, day + 300, DAY)
    assert polls == [(day + h * HOUR + 300, 1) for h in range(1, 24)]  # the first poll: none


def test_an_hour_that_begins_late_in_a_poll_is_prorated():
    assert policy.prorate(1, 0, HOUR, 600) == 1
    assert policy.prorate(3, 3000, HOUR, 600) == 1  # (600 + 600) / 3600 of 3
    assert policy.prorate(3, 3590, HOUR, 600) == 1
    assert policy.prorate(12, 23 * HOUR, DAY, 600) == 1
    assert policy.prorate(-2, 0, HOUR, 600) == -2  # never beyond n, nor of the other sign


def test_half_an_hour_drains_twelve_at_the_turn_of_the_day():
    day = 20_000 * DAY
    polls = drains_over(Rates.of(0.5, 600), 600, day - 1200, 2 * DAY)
    assert polls == [(day, 12), (day + DAY, 12)]


def test_when_nothing_is_drained():
    limits = policy.Limits(max_draining=2, max_whole=3)
    assert policy.why_not(1, 10, limits, draining=1, whole=2) is None
    assert policy.why_not(0, 10, limits, 0, 0) == (
        "number to drain in this interval is calculated to be 0"
    )
    assert policy.why_not(1, 0, limits, 0, 0) == "DEFRAG_DRAINING_MACHINES_PER_HOUR=0.000000"
    assert policy.why_not(1, 10, limits, 2, 0) == (
        "DEFRAG_MAX_CONCURRENT_DRAINING=2 and there are 2 draining machines"
    )
    assert policy.why_not(1, 10, limits, 0, 3) == (
        "DEFRAG_MAX_WHOLE_MACHINES=3 and there are 3 whole machines"
    )
    assert policy.why_not(1, 10, policy.Limits(0, -1), 0, 0) == "DEFRAG_MAX_CONCURRENT_DRAINING=0"


def test_the_best_ranked_slot_of_each_machine_not_whole_nor_cancelled():
    slots = [ClassAd({"Name": f"slot1@m{k}", "DrainRank": k}) for k in (1, 2, 3, 4, 5)] + [
        ClassAd({"Name": "slot2@m5", "DrainRank": 9}),
        ClassAd({"Name": "slot1@m6"}),
    ]
    ranked = policy.ranked(slots, ExprTree("DrainRank"), random.Random(1))
    assert [s["Name"] for s in ranked][:2] == ["slot2@m5", "slot1@m5"]
    assert ranked[-1]["Name"] == "slot1@m6"  # no rank: 0, last
    chosen = policy.eligible(ranked, whole={"m4"}, cancelled={"m3"})
    assert [s["Name"] for s in chosen] == ["slot2@m5", "slot1@m2", "slot1@m1", "slot1@m6"]
    assert policy.machine_of("slot1@startd3@host") == "startd3@host"
    assert policy.machine_of("host") == "host"
