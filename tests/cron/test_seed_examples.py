"""Every example of the two deferral and CronTab seeds (000 and 003), by hand: the times
they name, what the execute side does on arrival, when the schedd lets a job be matched,
and the next runs of each example schedule. Where a seed's prose and its attributes
disagree, the attributes win (the issue says so): `cron_hour = 20` is 8 pm, and
`cron_day_of_week = 2` is Tuesday, whatever the text around them says."""

from __future__ import annotations

import calendar
import time

import pytest

from condorx._core import deferral_on_arrival
from condorx.classad import ClassAd, ExprTree
from condorx.daemons.negotiator.service import eligible_constraint
from condorx.daemons.schedd import deferral
from condorx.daemons.starter import deferral as starter_deferral
from condorx.language.cron import CronSpec, next_runs


def utc(text: str) -> int:
    return calendar.timegm(time.strptime(text, "%Y-%m-%d %H:%M"))


def _eval(expr_text: str, **attrs: int | str) -> object:
    ad = ClassAd()
    for name, value in attrs.items():
        ad[name] = value
    return ExprTree(expr_text).eval(ad)


def test_deferral_time_as_an_epoch_time():
    # "begin execution on January 1st, 2006 at 12:00 pm": 1136138400 is noon in US Central.
    assert time.strftime("%Y-%m-%d %H:%M", time.gmtime(1136138400)) == "2006-01-01 18:00"
    assert deferral_on_arrival(1136138400 - 3600, 1136138400, 0) == ("wait", 3600)
    assert deferral_on_arrival(1136138400, 1136138400, 0) == ("start", 0)


def test_current_time_plus_60_is_evaluated_on_arrival_at_the_execute_machine():
    # "The job always waits 60 seconds before beginning execution", however long it took
    # to be matched: the starter evaluates the expression against its own clock.
    job = ClassAd()
    job["DeferralTime"] = ExprTree("(CurrentTime + 60)")
    for arrival in (1_000_000, 1_000_500):
        d = starter_deferral.of(job, arrival)
        assert isinstance(d, starter_deferral.Deferral) and d.time == arrival + 60
        assert starter_deferral.verdict(d, arrival) == ("wait", 60)


def test_current_time_minus_60_with_a_window_of_120_always_runs():
    # The deferral manual: "always evaluates to 60 seconds in the past from the execution machine's
    # current system time, but the job is still allowed to execute".
    job = ClassAd()
    job["DeferralTime"] = ExprTree("(CurrentTime - 60)")
    job["DeferralWindow"] = 120
    for arrival in (1_000_000, 1_900_000):
        d = starter_deferral.of(job, arrival)
        assert isinstance(d, starter_deferral.Deferral)
        assert starter_deferral.verdict(d, arrival) == ("start", 0)


def test_a_deferral_time_that_is_not_a_time_is_refused_on_arrival():
    job = ClassAd()
    job["DeferralTime"] = ExprTree('"noon"')
    why = starter_deferral.of(job, 1_000_000)
    assert isinstance(why, str) and "Invalid deferred execution time" in why


@pytest.mark.parametrize(
    ("late", "window", "outcome"),
    [
        (45, 120, "start"),  # "75 seconds remain in the deferral window"
        (60, 120, "start"),  # the deferral manual: DeferralTime = (CurrentTime - 60), window 120
        (120, 120, "start"),  # the last second of the window still counts
        (121, 120, "hold"),
        (1, 0, "hold"),  # no window: only an on-time arrival starts
    ],
)
def test_the_deferral_window(late: int, window: int, outcome: str):
    now = 1_700_000_000
    kind, seconds = deferral_on_arrival(now, now - late, window)
    assert kind == outcome
    assert seconds == (late if outcome == "hold" else 0)


def test_deferral_prep_time_delays_the_match():
    # 1262368800 is January 1st, 2010 at noon (US Central); matched from 60 s before.
    job = ClassAd()
    job["DeferralTime"] = 1262368800
    job["DeferralPrepTime"] = 60
    job["Requirements"] = ExprTree("TARGET.Memory > 0")
    clause = deferral.Rules().prep_requirements(job)
    assert clause is not None
    text = clause.text.replace("TARGET.Memory > 0", "true")
    at = {"DeferralTime": 1262368800, "DeferralPrepTime": 60}
    assert _eval(text.replace("time()", str(1262368800 - 61)), **at) is False
    assert _eval(text.replace("time()", str(1262368800 - 60)), **at) is True


def test_cron_prep_time_sends_the_job_at_955_for_10am():
    # cron_minute = 0, cron_prep_time = 300: submitted at 9:30, next run 10:00, sent 9:55.
    spec = CronSpec("0", "*")
    ten = utc("2024-05-01 10:00")
    assert next_runs(spec, utc("2024-05-01 09:30"), 1, "UTC") == [ten]
    job = {"JobStatus": 1, "CronMinute": "0", "CronHour": "*", "DeferralTime": ten}
    job["CronPrepTime"] = 300
    eligible = eligible_constraint(0, now="Now")
    assert _eval(eligible, Now=ten - 301, **job) is False
    assert _eval(eligible, Now=ten - 300, **job) is True
    # A schedd that looks at its queue every 20 s sends it on the pass before 9:55.
    assert _eval(eligible_constraint(20, now="Now"), Now=ten - 320, **job) is True


def test_cron_window_of_six_minutes():
    ten = utc("2024-05-01 10:00")
    assert deferral_on_arrival(ten + 360, ten, 360) == ("start", 0)
    assert deferral_on_arrival(ten + 361, ten, 360) == ("hold", 361)


def test_run_23_minutes_after_every_two_hours():
    runs = next_runs(CronSpec("23", "0-23/2", "*", "*", "*"), utc("2024-05-01 21:00"), 3, "UTC")
    assert runs == [utc("2024-05-01 22:23"), utc("2024-05-02 00:23"), utc("2024-05-02 02:23")]


def test_may_10th_to_20th_and_every_tuesday_in_may_at_20_30():
    # The prose says 10:30 pm and Mondays; the attributes say hour 20 and day 2 (Tuesday).
    spec = CronSpec("30", "20", "10-20", "5", "2")
    runs = next_runs(spec, utc("2024-04-01 00:00"), 15, "UTC")
    days = [time.gmtime(t)[:3] for t in runs]
    # May 2024: Tuesdays are the 7th, 14th, 21st and 28th; then May 6th 2025, a Tuesday.
    may = [(2024, 5, d) for d in (7, *range(10, 21), 21, 28)]
    assert days == [*may, (2025, 5, 6)]
    assert all(time.gmtime(t)[3:5] == (20, 30) for t in runs)


def test_every_10_and_every_6_minutes_before_noon_on_january_18th():
    spec = CronSpec("*/10,*/6", "0-11", "18", "1", "*")
    runs = next_runs(spec, utc("2024-01-01 00:00"), 200, "UTC")
    minutes = sorted({m for m in range(60) if m % 10 == 0 or m % 6 == 0})
    assert minutes == [0, 6, 10, 12, 18, 20, 24, 30, 36, 40, 42, 48, 50, 54]
    assert runs[:14] == [utc(f"2024-01-18 00:{m:02d}") for m in minutes]
    first_day = [t for t in runs if t < utc("2024-01-19 00:00")]
    assert len(first_day) == 14 * 12  # hours 0-11
    assert runs[14 * 12] == utc("2025-01-18 00:00")


def test_the_manual_field_values():
    # cron_hour = 0-4; minutes 15,20,25,30 of hours 0-3, 9-12 and 15; 10-30/5 and */3.
    assert next_runs(CronSpec("0", "0-4"), utc("2024-05-01 04:30"), 1, "UTC") == [
        utc("2024-05-02 00:00")
    ]
    runs = next_runs(CronSpec("15,20,25,30", "0-3,9-12,15"), utc("2024-05-01 03:31"), 5, "UTC")
    assert runs == [utc(f"2024-05-01 {h}") for h in ("09:15", "09:20", "09:25", "09:30", "10:15")]
    runs = next_runs(CronSpec("10-30/5", "*/3"), utc("2024-05-01 00:31"), 6, "UTC")
    assert runs == [
        utc(f"2024-05-01 {h}") for h in ("03:10", "03:15", "03:20", "03:25", "03:30", "06:10")
    ]
