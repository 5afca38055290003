"""The negotiator's time limits (NEGOTIATOR_MAX_TIME_PER_SUBMITTER, _PER_SCHEDD,
_PER_CYCLE, _PER_PIESPIN) through one cycle in the core, as HTCondor's matchmaker keeps
them: time used before matching counts, a submitter out of its time (or its schedd's,
or the cycle's) is passed over, and its jobs wait with the limit named. The limits are
given as time already spent, or none left, so that nothing here depends on how fast the
machine runs (the core's own clock arithmetic is tested in Rust, time_limits.rs)."""

from __future__ import annotations

from collections import Counter

from condorx.classad import ClassAd
from condorx.language.negotiation import Submitter, TimeLimits, negotiate


def slots(n: int) -> list[ClassAd]:
    return [
        ClassAd({"Name": f"slot{k}", "State": "Unclaimed", "Requirements": True}) for k in range(n)
    ]


def submitter(name: str, n: int) -> Submitter:
    jobs = [
        ClassAd({"Owner": name, "ClusterId": 1, "ProcId": k, "Requirements": True})
        for k in range(n)
    ]
    return Submitter(f"{name}@x", 500.0, jobs)


def run(subs: list[Submitter], limits: TimeLimits) -> tuple[Counter[str], Counter[str]]:
    cycle = negotiate(slots(12), subs, time_limits=limits)
    matched = Counter(m.submitter.name for m in cycle.matches)
    return matched, Counter(r.reason for r in cycle.rejections)


def test_a_submitter_whose_time_is_spent_is_passed_over():
    alice, bob = submitter("alice", 6), submitter("bob", 6)
    limits = TimeLimits(
        per_submitter=60.0,
        schedd={id(alice): "s1", id(bob): "s2"},
        spent={id(alice): 60.0, id(bob): 59.0},  # alice's schedd took all her minute
    )
    matched, reasons = run([alice, bob], limits)
    assert matched == {"bob@x": 6}
    assert reasons == {"MAX_TIME_PER_SUBMITTER exceeded": 6}


def test_a_schedds_submitters_share_its_time():
    alice, bob, carol = submitter("alice", 4), submitter("bob", 4), submitter("carol", 4)
    limits = TimeLimits(
        per_submitter=60.0,
        per_schedd=100.0,
        schedd={id(alice): "s1", id(bob): "s1", id(carol): "s2"},
        spent={id(alice): 50.0, id(bob): 50.0, id(carol): 50.0},
    )
    matched, reasons = run([alice, bob, carol], limits)
    assert matched == {"carol@x": 4}
    assert reasons == {"MAX_TIME_PER_SCHEDD exceeded": 8}


def test_a_cycle_out_of_time_matches_nothing_more():
    alice = submitter("alice", 3)
    matched, reasons = run([alice], TimeLimits(per_cycle=0.0))
    assert matched == {} and reasons == {"MAX_TIME_PER_CYCLE exceeded": 3}


def test_a_turn_with_no_time_matches_nothing_and_generous_limits_change_nothing():
    alice, bob = submitter("alice", 6), submitter("bob", 6)
    matched, reasons = run([alice, bob], TimeLimits(per_spin=0.0))
    assert matched == {}
    assert reasons == {"insufficient priority": 12}  # never stopped for its own time
    matched, reasons = run([alice, bob], TimeLimits())  # HTCondor's defaults
    assert matched == {"alice@x": 6, "bob@x": 6} and reasons == {}
