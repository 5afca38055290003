"""condorx.analyze: why a job does not match, clause by clause, with real ads and
counts."""

from __future__ import annotations

import importlib.util
import os

import pytest

import condorx
from condorx.classad import ClassAd, ExprTree, ParserType, parseAds
from condorx.language.analyze import Analysis

ARCHES = ["X86_64", "aarch64", "ppc64le", "X86_64"]


def pool(n: int = 2000, start: str = "true") -> list[ClassAd]:
    """A pool as a collector would hold it: memory 1-8 GiB, four architectures, START."""
    text = "\n\n".join(
        f'Name = "slot1@node{k}"\nMemory = {1024 * (k % 8 + 1)}\nCpus = {1 + k % 4}\n'
        f'Arch = "{ARCHES[k % 4]}"\nOpSys = "LINUX"\nState = "Unclaimed"\n'
        f"START = {start}\nRequirements = START"
        for k in range(n)
    )
    return list(parseAds(text, ParserType.Old))


def job(requirements: str, memory: int = 2048) -> ClassAd:
    return ClassAd(
        f'[ ClusterId = 7; ProcId = 0; Owner = "alice"; RequestMemory = {memory}; '
        f"RequestCpus = 1; Requirements = {requirements} ]"
    )


def rows(a: Analysis) -> list[tuple[str, int, int, int, int]]:
    return [(c.text, c.true_on, c.false_on, c.undefined_on, c.match_without) for c in a.clauses]


def test_exported_from_the_package():
    assert callable(condorx.analyze)
    assert "analyze" in condorx.__all__


def test_a_clause_that_rules_out_the_whole_pool():
    req = '(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Memory >= 16384)'
    a = condorx.analyze(job(req), pool())
    assert (a.slots, a.matching, a.rejected_by_job, a.rejecting_job) == (2000, 0, 2000, 0)
    assert rows(a) == [
        ('TARGET.Arch == "X86_64"', 1000, 1000, 0, 0),
        ('TARGET.OpSys == "LINUX"', 2000, 0, 0, 0),
        ("TARGET.Memory >= 16384", 0, 2000, 0, 1000),
    ]
    assert a.verdict() == (
        "no slot matches: the clause (TARGET.Memory >= 16384) rules out all 2000 slots"
    )


def test_counts_when_some_slots_match():
    req = '(TARGET.Arch == "X86_64") && (TARGET.Memory >= RequestMemory) && TARGET.Cpus >= 2'
    slots = pool(800)
    a = condorx.analyze(job(req, memory=4096), slots)
    # With r = k % 8 (100 slots each): x86 when r in {0, 3, 4, 7}; memory >= 4096 when
    # r >= 3; cpus >= 2 unless r in {0, 4}. All three: r in {3, 7}. Without the Arch
    # clause r in {3, 5, 6, 7}; without Memory {3, 7}; without Cpus {3, 4, 7}.
    expected = sum(ClassAd.symmetricMatch(job(req, memory=4096), s) for s in slots)
    assert a.matching == expected == 200
    assert a.rejected_by_job == 600
    assert rows(a) == [
        ('TARGET.Arch == "X86_64"', 400, 400, 0, 400),
        ("TARGET.Memory >= RequestMemory", 500, 300, 0, 200),
        ("TARGET.Cpus >= 2", 600, 200, 0, 300),
    ]
    assert a.verdict() == "200 of 800 slots match the job"


def test_a_misspelt_attribute_is_named_with_a_suggestion():
    req = '(TARGET.Memroy >= RequestMemory) && (TARGET.OpSys == "LINUX")'
    a = condorx.analyze(job(req), pool(500))
    assert a.matching == 0
    memroy, opsys = a.clauses
    assert (memroy.true_on, memroy.false_on, memroy.undefined_on) == (0, 0, 500)
    assert memroy.missing == ["TARGET.Memroy"] and opsys.missing == []
    assert memroy.match_without == 500, "the typo is the only thing in the way"
    assert a.suggestions == {"TARGET.Memroy": "TARGET.Memory"}
    assert a.verdict().endswith("no slot defines TARGET.Memroy (did you mean TARGET.Memory?)")
    assert "No slot defines TARGET.Memroy; did you mean TARGET.Memory?" in a.report()


def test_a_bare_misspelt_name_falls_through_to_the_slot():
    a = condorx.analyze(job("Memroy >= RequestMemory"), pool(10))
    assert a.clauses[0].missing == ["Memroy"]
    assert a.suggestions == {"Memroy": "Memory"}


def test_every_slot_start_rejects_the_job():
    slots = pool(300, start='TARGET.Owner == "bob" && TARGET.RequestCpus <= MY.Cpus')
    a = condorx.analyze(job("TARGET.Memory >= RequestMemory"), slots)
    small = len(range(0, 300, 8))  # the 1 GiB slots, k % 8 == 0: 38 of them
    assert (a.clauses[0].true_on, a.clauses[0].false_on) == (300 - small, small)
    assert (a.matching, a.rejected_by_job, a.rejecting_job) == (0, small, 300)
    assert a.clauses[0].match_without == 0


def test_requirements_fine_but_start_rejects_all():
    slots = pool(120, start='TARGET.Owner =!= "alice"')
    a = condorx.analyze(job('TARGET.OpSys == "LINUX"'), slots)
    assert (a.matching, a.rejected_by_job, a.rejecting_job) == (0, 0, 120)
    assert a.verdict() == (
        "no slot matches: the job's Requirements hold, but all 120 slots reject the job"
    )
    report = a.report()
    assert "120 reject the job by their own Requirements (START)" in report


def test_no_single_clause_to_blame():
    # The aarch64 slots (k % 4 == 1) are never the 8 GiB ones (k % 8 == 7): each clause
    # admits some slots, none passes both, and the verdict names the clause whose dropping
    # helps most (4 aarch64 slots against 2 big ones).
    req = '(TARGET.Arch == "aarch64") && (TARGET.Memory >= 8192)'
    a = condorx.analyze(job(req), pool(16))
    assert a.matching == 0
    assert [c.match_without for c in a.clauses] == [2, 4]
    assert (
        a.verdict() == "no slot matches: dropping (TARGET.Memory >= 8192) would let 4 slots match"
    )


def test_no_requirements_and_no_slots():
    a = condorx.analyze(ClassAd('[ Owner = "alice" ]'), pool(5))
    assert not a.has_requirements and a.clauses == []
    assert (a.matching, a.rejected_by_job) == (0, 5)
    assert "has no Requirements" in a.verdict()
    empty = condorx.analyze(job("TARGET.Memory > 0"), [])
    assert empty.slots == 0 and empty.clauses[0].missing == []
    assert empty.verdict() == "no slot matches: there are no slots"


def test_report_is_a_table_then_a_verdict():
    a = condorx.analyze(job("TARGET.Memory >= 16384 && TARGET.Cpus > 0"), pool(40))
    lines = a.report().splitlines()
    assert lines[0].startswith("The Requirements expression")
    assert lines[2].split() == [
        "Step",
        "True",
        "False",
        "Undef",
        "Match",
        "if",
        "dropped",
        "Condition",
    ]
    assert lines[4].split() == ["[0]", "0", "40", "0", "40", "TARGET.Memory", ">=", "16384"]
    assert (
        lines[-1]
        == "Verdict: no slot matches: the clause (TARGET.Memory >= 16384) rules out all 40 slots"
    )


@pytest.mark.skipif(importlib.util.find_spec("classad2") is None, reason="needs HTCondor")
def test_clause_counts_agree_with_htcondor():
    os.environ.setdefault("CONDOR_CONFIG", "ONLY_ENV")
    import classad2

    req = (
        '(TARGET.Arch == "X86_64" || TARGET.Arch == "aarch64") && '
        "(TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus * 2) && TARGET.Nope"
    )
    slots = pool(64)
    a = condorx.analyze(job(req), slots)
    htc_job = classad2.ClassAd(str(job(req)))
    htc_slots = [classad2.ClassAd(str(s)) for s in slots]
    for clause in a.clauses:
        values = [classad2.ExprTree(clause.text).eval(scope=htc_job, target=s) for s in htc_slots]
        assert clause.true_on == sum(v is True for v in values), clause.text
        assert clause.false_on == sum(v is False for v in values), clause.text
    assert a.matching == sum(htc_job.symmetricMatch(s) for s in htc_slots)
    assert ExprTree("TARGET.Nope").eval(scope=job(req), target=slots[0]) is not True
