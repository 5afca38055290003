"""A personal pool for tests of programs that find HTCondor the usual way: its daemons on
loopback, CONDOR_CONFIG naming its configuration and the tools first on the PATH in the
test's own environment (so any program the test starts reaches it), and the jobs'
scratch directories under a short path, as under HTCondor's /var/lib/condor/execute: a
job's TMPDIR is its scratch directory, and a Unix socket path made under a long pytest
tmp_path (Python's multiprocessing makes one) overruns its 107 bytes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from condorx.testing.pool import QUICK_POOL, LocalPool

BIN = Path(sys.executable).parent  # where the console scripts (condor_submit, ...) live


class Environ(Protocol):
    """What the pool needs of pytest's monkeypatch."""

    def setenv(self, name: str, value: str) -> None: ...

    def delenv(self, name: str, raising: bool = ...) -> None: ...


def personal_pool(root: Path, environ: Environ, extra: str = "") -> Iterator[LocalPool]:
    """Collector, negotiator, startd (4 slots) and schedd, with `extra` configuration;
    for a fixture to `yield from`."""
    environ.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    environ.delenv("CONDORX_CONFIG", raising=False)
    environ.delenv("CONDORX_TOKEN", raising=False)
    execute = tempfile.mkdtemp(prefix="cx-execute-")
    config = f"CLASSAD_LIFETIME = 60\n{QUICK_POOL}NUM_CPUS = 4\nEXECUTE = {execute}\n{extra}"
    pool = LocalPool(root, config)
    environ.setenv("CONDOR_CONFIG", str(pool.config_file))
    pool.env = {**os.environ}
    pool.reload()
    try:
        pool.start("collector", "negotiator", "startd", "schedd")
        yield pool
    finally:
        pool.stop()
        shutil.rmtree(execute, ignore_errors=True)


def history(pool: LocalPool, constraint: str, *attrs: str) -> list[list[str]]:
    """condor_history's `-af` rows for the jobs that match, as the pool's user runs it."""
    return _rows(pool, "condor_history", constraint, attrs)


def queue(pool: LocalPool, constraint: str, *attrs: str) -> list[list[str]]:
    """condor_q's `-af` rows for the jobs that match."""
    return _rows(pool, "condor_q", constraint, attrs)


def _rows(pool: LocalPool, tool: str, constraint: str, attrs: tuple[str, ...]) -> list[list[str]]:
    out = subprocess.run(
        [tool, "-constraint", constraint, "-af", *attrs],
        env=pool.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.split() for line in out.splitlines()]
