"""The condorx CLI: the demo and `condorx eval`, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys


def condorx(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "condorx.cli.main", *args], capture_output=True, text=True
    )


def test_eval_prints_the_value():
    r = condorx("eval", "Memory * 2", "--my", "[ Memory = 1024 ]")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "2048"


def test_eval_with_target():
    expr = 'TARGET.Arch == "x86_64"'
    r = condorx("eval", expr, "--my", "[ a = 1 ]", "--target", '[ Arch = "X86_64" ]')
    assert r.stdout.strip() == "True"


def test_eval_bad_expression_is_a_clear_error():
    r = condorx("eval", "1 +")
    assert r.returncode == 2
    assert "line 1, column 4" in r.stderr
    assert "Traceback" not in r.stderr


def test_demo_matches_jobs_to_slots():
    r = condorx("demo", "--slots", "300", "--jobs", "12", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert len(rows) == 12
    assert any(row["matching_slots"] > 0 for row in rows)
    for row in rows:
        assert (row["best_slot"] is None) == (row["matching_slots"] == 0)


def test_eval_warns_about_unknown_functions():
    r = condorx("eval", 'strcat("a", nosuch(1))')
    assert r.returncode == 0
    assert r.stdout.strip() == "<Value.Error: 1>"
    assert "unknown function nosuch()" in r.stderr
