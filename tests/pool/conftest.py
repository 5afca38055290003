"""Pools of real daemon processes in a scratch directory, stopped after each test."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import QUICK_POOL, LocalPool
from condorx.testing.pool import wait_for as wait_for  # the tests import it from here


class Pool(LocalPool):
    """A pool whose tools run as `pool.cli("module[:function]", *args)` (LocalPool.cli)."""


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[Pool]:
    p = Pool(tmp_path, "CLASSAD_LIFETIME = 60\n")
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
def open_pool(open_root: Path) -> Iterator[Pool]:
    """A pool in an `open_root`, with `out/` a directory anyone may write to."""
    (open_root / "out").mkdir(mode=0o777)
    (open_root / "out").chmod(0o777)
    p = Pool(open_root, "CLASSAD_LIFETIME = 60\n")
    try:
        yield p
    finally:
        p.stop()


# A small, quick pool: the daemons update, negotiate and report every second or two.
POOL = QUICK_POOL


@pytest.fixture
def running(pool: Pool) -> Pool:
    """A pool with its collector, negotiator, startd and schedd running."""
    with open(pool.config_file, "a") as f:
        f.write(POOL)
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    return pool
