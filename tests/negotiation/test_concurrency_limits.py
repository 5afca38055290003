"""Concurrency limits through one negotiation cycle in the core, as HTCondor's matchmaker
holds jobs to them (rejectForConcurrencyLimits, Accountant::GetLimitMax): the maxima by
name, by a dotted name's tag and by default; what running jobs hold; amounts and
fractions; a job under several limits; limits that are an expression of the slot."""

from __future__ import annotations

from collections import Counter

import pytest

from condorx.classad import ClassAd, ExprTree
from condorx.language.negotiation import ConcurrencyLimits, Submitter, negotiate


def slots(n: int, **attrs: object) -> list[ClassAd]:
    return [
        ClassAd({"Name": f"slot{k}", "State": "Unclaimed", "Requirements": True, **attrs})
        for k in range(n)
    ]


def jobs(n: int, limits: str | ExprTree | None, first: int = 0) -> list[ClassAd]:
    out = []
    for k in range(first, first + n):
        ad = ClassAd({"Owner": "u", "ClusterId": 1, "ProcId": k, "Requirements": True})
        if limits is not None:
            ad["ConcurrencyLimits"] = limits
        out.append(ad)
    return out


def limits(maxima=None, scoped=None, default=2308032.0) -> ConcurrencyLimits:
    return ConcurrencyLimits(maxima or {}, scoped or {}, default)


def outcome(pool, job_ads, pool_limits):
    cycle = negotiate(pool, [Submitter("u@x", 500.0, job_ads)], limits=pool_limits)
    reasons = Counter(r.reason for r in cycle.rejections)
    return len(cycle.matches), reasons, cycle


# HTCondor's test_concurrency_limits.py: its four limits, each on twelve slots.
@pytest.mark.parametrize(
    "pool_limits, submitted, running, name",
    [
        (limits({"XSW": 4}), "XSW", 4, "xsw"),
        (limits(default=2), "UNDEFINED:2", 1, "undefined"),
        (limits(scoped={"SMALL": 3}), "small.license", 3, "small.license"),
        (limits(scoped={"LARGE": 1}), "large.license", 1, "large.license"),
    ],
)
def test_htcondors_four_limits(pool_limits, submitted, running, name):
    n = (running + 1) * 2
    matched, reasons, cycle = outcome(slots(12), jobs(n, submitted.lower()), pool_limits)
    assert matched == running
    assert reasons == {f"concurrency limit {name} reached": n - running}
    amount = 2.0 if ":2" in submitted else 1.0
    assert pool_limits.counts() == {name: running * amount}
    assert {m.limits for m in cycle.matches} == {submitted.lower()}


def test_what_running_jobs_hold_counts_and_a_fraction_takes_its_part():
    pool_limits = limits({"a": 2})
    pool_limits.hold(["a:0.5", "b", "a:0.5,b"])  # three slots' ConcurrencyLimits
    matched, _, _ = outcome(slots(12), jobs(6, "a:0.25"), pool_limits)
    assert matched == 4  # 1 held, 4 quarters more
    assert pool_limits.counts() == {"a": 2.0, "b": 2.0}


def test_a_job_under_two_limits_waits_for_the_full_one_and_others_go_on():
    pool_limits = limits({"a": 10, "b": 1})
    pool = slots(12)
    job_ads = jobs(3, "a,b") + jobs(3, None, first=3) + jobs(2, "a", first=6)
    matched, reasons, cycle = outcome(pool, job_ads, pool_limits)
    assert matched == 1 + 3 + 2
    assert reasons == {"concurrency limit b reached": 2}
    assert pool_limits.counts() == {"a": 3.0, "b": 1.0}
    assert sorted(str(m.limits) for m in cycle.matches) == ["None"] * 3 + ["a"] * 2 + ["a,b"]


def test_an_expression_of_the_slot_is_evaluated_against_each_candidate():
    pool = slots(3, Arch="X86_64") + slots(3, Arch="ARM")
    for k, slot in enumerate(pool):
        slot["Name"] = f"slot{k}"
    expr = ExprTree('strcat("lic_", TARGET.Arch)')
    pool_limits = limits({"lic_x86_64": 1, "lic_arm": 2})
    matched, reasons, cycle = outcome(pool, jobs(5, expr), pool_limits)
    assert matched == 3
    assert sorted(str(m.limits) for m in cycle.matches) == ["lic_arm", "lic_arm", "lic_x86_64"]
    # The two left waiting were refused by a full limit on every slot (which one was
    # named last depends on the slots' order), not for want of a match.
    assert sum(reasons.values()) == 2
    assert set(reasons) <= {f"concurrency limit lic_{a} reached" for a in ("arm", "x86_64")}
    assert pool_limits.counts() == {"lic_x86_64": 1.0, "lic_arm": 2.0}


def test_a_partitionable_slot_is_carved_only_within_the_limit():
    pslot = ClassAd(
        {
            "Name": "slot1@x",
            "State": "Unclaimed",
            "PartitionableSlot": True,
            "SlotType": "Partitionable",
            "Cpus": 12,
            "Memory": 12000,
            "Disk": 100000,
            "Requirements": ExprTree("TARGET.RequestCpus <= Cpus"),
        }
    )
    job_ads = jobs(8, "xsw")
    for ad in job_ads:
        ad["RequestCpus"], ad["RequestMemory"], ad["RequestDisk"] = 1, 100, 10
    pool_limits = limits({"xsw": 4})
    matched, reasons, cycle = outcome([pslot], job_ads, pool_limits)
    assert matched == 4 and all(m.dynamic_slot is not None for m in cycle.matches)
    assert reasons == {"concurrency limit xsw reached": 4}


def test_invalid_limits_are_ignored_and_the_maxima_read_without_case():
    pool_limits = limits({"SW": 1}, {"Lic": 2}, 5)
    assert pool_limits.maximum("sw") == 1 and pool_limits.maximum("LIC.matlab") == 2
    assert pool_limits.maximum("other") == 5
    assert ConcurrencyLimits.parse("9a, a.b.c, ok:x, frac:0.5") == [("ok", 1.0), ("frac", 0.5)]
    matched, _, _ = outcome(slots(3), jobs(3, "9a"), limits(default=0))
    assert matched == 3  # nothing valid to count


def test_without_limits_the_cycle_counts_nothing():
    cycle = negotiate(slots(2), [Submitter("u@x", 500.0, jobs(3, "xsw"))])
    assert len(cycle.matches) == 2 and {m.limits for m in cycle.matches} == {None}
