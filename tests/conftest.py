"""Shared fixtures: where the shared conformance corpus and workloads live, and pools of
real daemon processes in a scratch directory, stopped after each test."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import QUICK_POOL, LocalPool

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


# Fixtures that start real daemons: a test that uses one is marked `daemons`, and
# `bin/test --fast` (-m "not daemons") leaves it out. A module that starts processes in
# its own way says so with `pytestmark = pytest.mark.daemons`.
DAEMON_FIXTURES = frozenset(
    {"pool", "running", "open_pool", "personal_pool", "dag_pool", "schedd", "desktop"}
)


def pytest_configure(config):  # noqa: D103 - pytest hook
    config.addinivalue_line("markers", "daemons: starts real daemons or tools (not --fast)")


def pytest_collection_modifyitems(config, items):  # noqa: D103 - pytest hook
    for item in items:
        if DAEMON_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.daemons)


@pytest.fixture(scope="session", autouse=True)
def forked_daemons() -> None:
    """The tests' daemons are forked from a server that has imported them (see
    `condorx.testing.daemon_forks`); the benchmarks start theirs as users do."""
    LocalPool.fork_daemons = True


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[LocalPool]:
    p = LocalPool(tmp_path, "CLASSAD_LIFETIME = 60\n")
    try:
        yield p
    finally:
        p.stop()


@pytest.fixture
def open_root() -> Iterator[Path]:
    """A scratch directory every account may enter (pytest's own are root's alone), for
    pools whose jobs run as other accounts than root: nobody, or their owners'."""
    root = Path(tempfile.mkdtemp(prefix="condorx-test-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def open_pool(open_root: Path) -> Iterator[LocalPool]:
    """A pool in an `open_root`, with `out/` a directory anyone may write to."""
    (open_root / "out").mkdir(mode=0o777)
    (open_root / "out").chmod(0o777)
    p = LocalPool(open_root, "CLASSAD_LIFETIME = 60\n")
    try:
        yield p
    finally:
        p.stop()


@pytest.fixture
def running(pool: LocalPool) -> LocalPool:
    """A pool with its collector, negotiator, startd and schedd running."""
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL)  # the daemons update, negotiate and report every second or two
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    return pool
