"""The state machine's rules, transition by transition (manual 3.5.8): for each
numbered transition, the state, activity, policy facts and events that lead to it, and
the ones that must not. The daemons' own tests (tests/startd/test_startd_policy.py) show
the same transitions on real processes."""

from __future__ import annotations

import pytest

from condorx.daemons.startd.states import (
    ACTIVATED,
    CLAIMED,
    MATCHED,
    FixedFacts,
    Flags,
    Why,
    next_step,
)


def step(state, activity, facts=None, **flags):
    return next_step(state, activity, facts or FixedFacts(), Flags(**flags))


def number(state, activity, facts=None, **flags):
    s = step(state, activity, facts, **flags)
    return None if s is None else (s.number, s.state, s.activity, s.action)


def test_owner_and_unclaimed_follow_is_owner():
    assert number("Owner", "Idle", FixedFacts(is_owner=True)) is None
    assert number("Owner", "Idle", FixedFacts(is_owner=False)) == (1, "Unclaimed", "Idle", None)
    assert number("Unclaimed", "Idle", FixedFacts(is_owner=True)) == (2, "Owner", "Idle", None)
    assert number("Unclaimed", "Idle") is None


def test_benchmarks():
    assert number("Unclaimed", "Idle", FixedFacts(run_benchmarks=True)) == (
        3,
        "Unclaimed",
        "Benchmarking",
        "benchmark",
    )
    assert number("Unclaimed", "Benchmarking") is None  # still running
    flags = Flags(benchmarks_done=True)
    s = next_step("Unclaimed", "Benchmarking", FixedFacts(), flags)
    assert (s.number, s.activity) == (4, "Idle") and not flags.benchmarks_done
    # Never on a machine its owner is using.
    assert number("Owner", "Idle", FixedFacts(is_owner=True, run_benchmarks=True)) is None


def test_protocol_transitions():
    assert (MATCHED.number, MATCHED.state) == (6, "Matched")
    assert (CLAIMED.number, CLAIMED.state, CLAIMED.activity) == (9, "Claimed", "Idle")
    assert (ACTIVATED.number, ACTIVATED.activity) == (11, "Busy")


def test_backfill_starts_when_idle_and_start_backfill():
    on = FixedFacts(backfill_enabled=True, start_backfill=True)
    assert number("Unclaimed", "Idle", on) == (7, "Backfill", "Idle", None)
    assert number("Unclaimed", "Idle", FixedFacts(start_backfill=True)) is None  # not enabled


def test_matched_lapses_or_the_owner_returns():
    assert number("Matched", "Idle", FixedFacts(match_expired=True))[:2] == (8, "Owner")
    assert number("Matched", "Idle", FixedFacts(start_false=True)) == (
        8,
        "Owner",
        "Idle",
        "end-claim",
    )
    assert number("Matched", "Idle") is None


@pytest.mark.parametrize(
    ("facts", "flags", "activity"),
    [
        (FixedFacts(start_false=True), {}, "Vacating"),
        (FixedFacts(worklife_over=True), {}, "Vacating"),
        (FixedFacts(match_expired=True), {}, "Vacating"),
        (FixedFacts(), {"vacate_requested": Why.VACATE}, "Vacating"),
        (FixedFacts(want_vacate=False), {"vacate_requested": Why.RELEASED}, "Killing"),
    ],
)
def test_claimed_idle_is_preempted(facts, flags, activity):
    s = step("Claimed", "Idle", facts, **flags)
    assert (s.number, s.state, s.activity) == (10, "Preempting", activity)


def test_claimed_busy():
    assert number("Claimed", "Busy", job_running=False)[:3] == (12, "Claimed", "Idle")
    # WANT_SUSPEND decides which of SUSPEND and PREEMPT is read.
    suspend = FixedFacts(want_suspend=True, suspend=True, preempt=True)
    assert number("Claimed", "Busy", suspend, job_running=True) == (
        14,
        "Claimed",
        "Suspended",
        "suspend",
    )
    assert (
        number("Claimed", "Busy", FixedFacts(want_suspend=True, preempt=True), job_running=True)
        is None
    )
    flags = Flags(job_running=True)
    s = next_step("Claimed", "Busy", FixedFacts(preempt=True), flags)
    assert (s.number, s.activity) == (13, "Retiring") and flags.retiring_for is Why.OWNER
    # A shutdown or a better match retires the claim too.
    flags = Flags(job_running=True, vacate_requested=Why.BETTER_MATCH)
    assert next_step("Claimed", "Busy", FixedFacts(), flags).number == 13
    assert flags.retiring_for is Why.BETTER_MATCH


def test_claimed_suspended():
    running = {"job_running": True}
    assert number("Claimed", "Suspended", FixedFacts(resume=True), **running) == (
        15,
        "Claimed",
        "Busy",
        "continue",
    )
    assert number(
        "Claimed", "Suspended", FixedFacts(resume=True), retiring_for=Why.OWNER, **running
    ) == (16, "Claimed", "Retiring", "continue")
    assert number("Claimed", "Suspended", FixedFacts(preempt=True), **running)[:3] == (
        16,
        "Claimed",
        "Retiring",
    )
    # condor_suspend: CONTINUE does not resume what the user suspended; a preemption
    # still goes through.
    assert (
        number("Claimed", "Suspended", FixedFacts(resume=True), user_suspended=True, **running)
        is None
    )
    assert number(
        "Claimed",
        "Suspended",
        FixedFacts(resume=True),
        user_suspended=True,
        vacate_requested=Why.VACATE,
        **running,
    )[:3] == (16, "Claimed", "Retiring")
    # Retirement time runs out while suspended (it shrank): straight to Preempting.
    assert number(
        "Claimed", "Suspended", FixedFacts(retirement_over=True), retiring_for=Why.OWNER, **running
    )[:3] == (17, "Preempting", "Vacating")


def test_claimed_retiring():
    running = {"job_running": True, "retiring_for": Why.OWNER}
    assert number("Claimed", "Retiring", **running) is None  # waits for the job
    assert number("Claimed", "Retiring", FixedFacts(retirement_over=True), **running)[:3] == (
        18,
        "Preempting",
        "Vacating",
    )
    assert number("Claimed", "Retiring", retiring_for=Why.OWNER)[:2] == (18, "Preempting")
    assert number(
        "Claimed", "Retiring", FixedFacts(retirement_over=True, want_vacate=False), **running
    ) == (18, "Preempting", "Killing", "kill")
    assert number("Claimed", "Retiring", FixedFacts(want_suspend=True, suspend=True), **running)[
        :3
    ] == (
        20,
        "Claimed",
        "Suspended",
    )
    # Unretiring: only when retiring for a preempting claim that went away.
    assert number(
        "Claimed",
        "Retiring",
        job_running=True,
        retiring_for=Why.BETTER_MATCH,
        better_match_gone=True,
    )[:3] == (19, "Claimed", "Busy")
    assert number("Claimed", "Retiring", better_match_gone=True, **running) is None


def test_preempting():
    assert number("Preempting", "Vacating", FixedFacts(kill=True), job_running=True) == (
        21,
        "Preempting",
        "Killing",
        "kill",
    )
    assert number("Preempting", "Vacating", job_running=True) is None
    assert number("Preempting", "Vacating", preempting_for=Why.OWNER) == (
        22,
        "Owner",
        "Idle",
        "end-claim",
    )
    assert number("Preempting", "Vacating", preempting_for=Why.BETTER_MATCH)[:3] == (
        23,
        "Claimed",
        "Idle",
    )
    assert number("Preempting", "Killing", preempting_for=Why.BETTER_MATCH)[:3] == (
        24,
        "Claimed",
        "Idle",
    )
    assert number("Preempting", "Killing", preempting_for=Why.VACATE)[:2] == (25, "Owner")


def test_backfill():
    on = FixedFacts(backfill_enabled=True, start_backfill=True)
    assert number("Backfill", "Idle", on) == (26, "Backfill", "Busy", "backfill-start")
    assert number("Backfill", "Idle", on, backfill_running=True)[:3] == (26, "Backfill", "Busy")
    assert number("Backfill", "Busy", on)[:3] == (27, "Backfill", "Idle")
    evict = FixedFacts(backfill_enabled=True, evict_backfill=True)
    flags = Flags(backfill_running=True)
    s = next_step("Backfill", "Busy", evict, flags)
    assert (s.number, s.activity, s.action) == (28, "Killing", "backfill-kill")
    assert number("Backfill", "Killing", on, backfill_running=True) is None
    assert number("Backfill", "Killing", on)[:3] == (29, "Backfill", "Idle")
    assert next_step("Backfill", "Idle", on, flags).number == 30  # evicted: to Owner
    assert number("Backfill", "Idle", on, pending_claim=True)[:3] == (31, "Claimed", "Idle")
    assert number("Backfill", "Idle", on, pending_match=True)[:3] == (32, "Matched", "Idle")
    # A match while the client runs kills it first (28), then goes to Matched (32).
    flags = Flags(backfill_running=True, pending_match=True)
    assert next_step("Backfill", "Busy", on, flags).number == 28


def test_draining_takes_free_slots_to_drained_and_back_when_it_ends():
    draining = FixedFacts(draining=True)
    assert number("Owner", "Idle", draining) == (0, "Drained", "Idle", None)
    assert number("Unclaimed", "Idle", draining) == (0, "Drained", "Idle", None)
    assert number("Unclaimed", "Benchmarking", draining) is None  # the benchmarks finish
    assert number("Drained", "Idle", draining) is None
    assert number("Drained", "Idle", FixedFacts()) == (0, "Owner", "Idle", None)
    # A busy claim retires for the drain, and goes back to Busy if the drain is cancelled.
    flags = Flags(job_running=True, vacate_requested=Why.DRAIN)
    s = next_step("Claimed", "Busy", draining, flags)
    assert (s.number, s.activity, flags.retiring_for) == (13, "Retiring", Why.DRAIN)
    assert next_step("Claimed", "Retiring", draining, flags) is None
    s = next_step("Claimed", "Retiring", FixedFacts(), flags)
    assert (s.number, s.state, s.activity) == (19, "Claimed", "Busy")
    # A quick drain's job has no retirement: it is vacated at once.
    flags = Flags(job_running=True, retiring_for=Why.DRAIN)
    over = FixedFacts(draining=True, retirement_over=True)
    assert number("Claimed", "Retiring", over, **flags.__dict__) == (
        18,
        "Preempting",
        "Vacating",
        "vacate",
    )
