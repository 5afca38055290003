"""The negotiator's last cycles in its ad, with HTCondor's names and suffixes (the newest
0), kept for NEGOTIATION_CYCLE_STATS_LENGTH cycles."""

from __future__ import annotations

from condorx.daemons.negotiator.cycle_stats import CycleStats


def cycle(matches: int, seconds: float) -> dict[str, object]:
    return {
        "seconds": seconds,
        "matches": matches,
        "slots": 10,
        "idle_jobs": 7,
        "rejections": 2,
        "total_slots": 12,
        "schedulers": 1,
        "submitters": 3,
        "gather": 0.25,
        "match": 0.5,
        "hand_out": 0.25,
    }


def test_the_newest_cycle_is_zero_and_the_oldest_falls_off():
    stats = CycleStats(length=2)
    stats.record(cycle(4, 1.0), began=1000.0, ended=1001.0)
    stats.record(cycle(5, 2.0), began=1060.0, ended=1062.0)
    stats.record(cycle(6, 0.5), began=1120.5, ended=1121.0)
    ad = stats.ad()
    assert ad["LastNegotiationCycleMatches0"] == 6 and ad["LastNegotiationCycleMatches1"] == 5
    assert "LastNegotiationCycleMatches2" not in ad
    assert ad["LastNegotiationCycleTime0"] == 1120 and ad["LastNegotiationCycleEnd0"] == 1121
    assert ad["LastNegotiationCyclePeriod0"] == 60 and ad["LastNegotiationCyclePeriod1"] == 0
    assert ad["LastNegotiationCycleMatchRate0"] == 12.0
    assert [ad[f"LastNegotiationCyclePhase{p}Duration0"] for p in (1, 2, 3, 4)] == [
        0.25,
        0.0,
        0.5,
        0.25,
    ]
    assert (
        ad["LastNegotiationCycleTotalSlots0"],
        ad["LastNegotiationCycleCandidateSlots0"],
        ad["LastNegotiationCycleNumSchedulers0"],
        ad["LastNegotiationCycleNumIdleJobs0"],
        ad["LastNegotiationCycleActiveSubmitterCount0"],
        ad["LastNegotiationCycleRejections0"],
    ) == (12, 10, 1, 7, 3, 2)


def test_no_cycle_yet_publishes_nothing():
    assert CycleStats().ad() == {}
