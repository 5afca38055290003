"""SIM_JOB_DURATION: seconds, or a distribution each job draws from by its id."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from condorx.language.config.errors import ConfigError
from condorx.sim.durations import Durations

JOBS = [f"{c}.{p}" for c in range(1, 41) for p in range(50)]


def test_seconds_are_every_jobs_duration_unless_the_job_says_its_own():
    d = Durations.parse("90")
    assert d.of("1.0") == 90.0 and d.of("7.3") == 90.0
    assert d.of("1.0", own=5) == 5.0 and d.of("1.0", own=0) == 0.0
    assert d.of("1.0", own=-1) == 90.0 and d.of("1.0", own=True) == 90.0


@pytest.mark.parametrize(
    "text, mean",
    [
        ("uniform(30, 90)", 60.0),
        ("exponential(600)", 600.0),
        ("normal(600, 60)", 600.0),
        ("weibull(600, 1)", 600.0),  # shape 1: an exponential of mean 600
        ("lognormal(4, 0.5)", 2.718281828 ** (4 + 0.5**2 / 2)),
    ],
)
def test_a_distribution_has_its_mean_over_many_jobs(text, mean):
    draws = [Durations.parse(text).of(j) for j in JOBS]
    assert len(set(draws)) > len(JOBS) // 2  # drawn, not one value
    assert min(draws) >= 0
    assert statistics.fmean(draws) == pytest.approx(mean, rel=0.08)


def test_uniform_stays_within_its_bounds():
    draws = [Durations.parse("uniform(30, 90)").of(j) for j in JOBS]
    assert 30 <= min(draws) < 33 and 87 < max(draws) <= 90


@given(st.text(min_size=1, max_size=5), st.sampled_from(JOBS))
def test_a_jobs_draw_depends_only_on_the_seed_and_its_id(seed, job):
    first = Durations.parse("exponential(60)", seed=seed)
    again = Durations.parse(" exponential( 60 ) ", seed=seed)
    assert first.of(job) == again.of(job)


def test_another_seed_draws_otherwise():
    a = [Durations.parse("exponential(60)", seed="a").of(j) for j in JOBS[:20]]
    b = [Durations.parse("exponential(60)", seed="b").of(j) for j in JOBS[:20]]
    assert a != b


@pytest.mark.parametrize(
    "text, says",
    [
        ("-5", "0 or more seconds"),
        ("nan", "0 or more seconds"),
        ("gamma(2, 3)", "not seconds or a distribution"),
        ("soon", "not seconds or a distribution"),
        ("uniform(90, 30)", "is not a distribution"),
        ("exponential(0)", "is not a distribution"),
        ("normal(600)", "takes 2 number(s)"),
        ("uniform(a, b)", "takes numbers"),
    ],
)
def test_a_bad_setting_is_refused_by_name(text, says):
    with pytest.raises(ConfigError) as e:
        Durations.parse(text)
    assert "SIM_JOB_DURATION" in str(e.value) and says in str(e.value)
