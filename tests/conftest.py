"""Shared fixtures: where the shared conformance corpus and workloads live."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"the shared corpus is missing: {SHARED}")
    return SHARED


# Results that a test wants shown at the end of the run (the conformance pass rate).
SUMMARY: list[str] = []


@pytest.fixture(scope="session")
def summary() -> list[str]:
    """Lines to show at the end of the run (a fixture: a test module importing this
    conftest by name would get whichever folder's conftest was imported last)."""
    return SUMMARY


def pytest_terminal_summary(terminalreporter):  # noqa: D103 - pytest hook
    for line in SUMMARY:
        terminalreporter.write_line(line)
