"""A personal pool for DAGs: collector, negotiator, startd (4 slots) and schedd on
loopback, found through CONDOR_CONFIG by condor_submit_dag and by the condor_dagman the
schedd starts; the tools first on the PATH, as a user has them."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import QUICK_POOL, LocalPool

BIN = Path(sys.executable).parent

# DAGMan looks at its nodes log often here, as HTCondor's does every 5 s.
DAG_POOL = QUICK_POOL + "NUM_CPUS = 4\nDAGMAN_USER_LOG_SCAN_INTERVAL = 1\n"


@pytest.fixture
def dag_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalPool]:
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("CONDORX_CONFIG", raising=False)
    monkeypatch.delenv("CONDORX_TOKEN", raising=False)
    execute = tempfile.mkdtemp(prefix="cx-execute-")
    pool = LocalPool(tmp_path, f"CLASSAD_LIFETIME = 60\n{DAG_POOL}EXECUTE = {execute}\n")
    monkeypatch.setenv("CONDOR_CONFIG", str(pool.config_file))
    pool.env = {**os.environ}
    pool.reload()
    try:
        pool.start("collector", "negotiator", "startd", "schedd")
        yield pool
    finally:
        pool.stop()
        shutil.rmtree(execute, ignore_errors=True)
