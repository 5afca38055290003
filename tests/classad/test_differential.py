"""Differential test: random expressions, ads, matches and old-syntax texts against
HTCondor's own ClassAd library (classad2, from the `htcondor` package in the test extra).

A bounded, deterministic run of tests/classad/differential.py; run that script directly for
many more cases and shrunk reports of each discrepancy.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import differential  # noqa: E402

CASES = 2000
SEED = 20250101

# Discrepancy kinds known and not yet fixed (see the fuzzer's report); any other fails.
KNOWN = {
    # old syntax: where a bad line makes HTCondor's reader stop, skip or fail, and how it
    # reads `\"` at the end of a line and escapes in quoted names.
    "old/old",
    "old/accepted",
    # [Requirements = x =?= Requirements]: HTCondor's symmetricMatch differs from matches.
    "match/match",
}


def test_differential_against_classad2():
    if importlib.util.find_spec("classad2") is None:
        pytest.fail("classad2 (pip install htcondor==25.14.1, in the test extra) is missing")
    found = differential.run(CASES, SEED, show=3, shrink_them=True)
    unexpected = {k: v for k, v in found.items() if k not in KNOWN}
    report = []
    for key, items in sorted(unexpected.items()):
        report.append(f"{key}: {len(items)} cases")
        for item in items:
            if item is not None:
                desc, ref, got = item
                report.append(f"  {desc}\n    classad2: {ref}\n    condorx:  {got}")
    assert not unexpected, "\n".join(report)
