"""A personal pool for real HTCondor client libraries: its daemons on loopback, and the
process environment set so that the library's own `condor_submit`, `condor_q` and
`condor_rm` calls reach it, as they would a personal HTCondor."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import QUICK_POOL, LocalPool

BIN = Path(sys.executable).parent  # where the console scripts (condor_submit, ...) live


@pytest.fixture
def personal_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalPool]:
    """Collector, negotiator, startd (4 slots) and schedd, found through CONDOR_CONFIG by
    any program this test starts, with the tools first on the PATH. The jobs' scratch
    directories are under a short path, as under HTCondor's /var/lib/condor/execute: the
    job's TMPDIR is its scratch directory, and a Unix socket path made under a long
    pytest tmp_path (Python's multiprocessing makes one) overruns its 107 bytes."""
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("CONDORX_CONFIG", raising=False)
    monkeypatch.delenv("CONDORX_TOKEN", raising=False)
    execute = tempfile.mkdtemp(prefix="cx-execute-")
    config = f"CLASSAD_LIFETIME = 60\n{QUICK_POOL}NUM_CPUS = 4\nEXECUTE = {execute}\n"
    pool = LocalPool(tmp_path, config)
    monkeypatch.setenv("CONDOR_CONFIG", str(pool.config_file))
    pool.env = {**os.environ}
    pool.reload()
    try:
        pool.start("collector", "negotiator", "startd", "schedd")
        yield pool
    finally:
        pool.stop()
        shutil.rmtree(execute, ignore_errors=True)
