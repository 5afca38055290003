"""The prep-time clause the schedd appends to Requirements (`deferral.Rules`): once, with
this schedd's SCHEDD_INTERVAL, and not again on an ad that has it with any interval."""

from __future__ import annotations

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.schedd.deferral import Rules

CRON = "((time() + {}) >= (DeferralTime - CronPrepTime))"
PREP = "((time() + DeferralPrepTime) >= DeferralTime)"


def job(**attrs: object) -> ClassAd:
    ad = ClassAd()
    for name, value in attrs.items():
        ad[name] = ExprTree(value) if name == "Requirements" else value
    return ad


def test_a_cron_job_gets_the_clause_with_this_schedds_interval():
    clause = Rules(interval=60).prep_requirements(job(CronPrepTime=30, Requirements="Cpus > 0"))
    assert clause is not None and clause.text == f"(Cpus > 0) && {CRON.format(60)}"


def test_a_job_with_no_requirements_gets_the_clause_alone():
    clause = Rules(interval=300).prep_requirements(job(DeferralPrepTime=90))
    assert clause is not None and clause.text == PREP


def test_the_clause_is_not_appended_twice_whatever_interval_it_was_written_with():
    rules = Rules(interval=300)
    for interval in (300, 60, 7):
        again = job(CronPrepTime=30, Requirements=f"(Cpus > 0) && {CRON.format(interval)}")
        assert rules.prep_requirements(again) is None
    assert rules.prep_requirements(job(DeferralPrepTime=5, Requirements=f"(x) && {PREP}")) is None


def test_a_clause_of_another_shape_does_not_count():
    # CronPrepTime read against another attribute is not the schedd's clause.
    other = "((time() + 300) >= (DeferralTime - OtherPrep))"
    clause = Rules(interval=300).prep_requirements(job(CronPrepTime=1, Requirements=other))
    assert clause is not None and clause.text.endswith(CRON.format(300))


def test_a_job_with_no_prep_time_is_left_alone():
    assert Rules().prep_requirements(job(Requirements="true", DeferralTime=5)) is None
