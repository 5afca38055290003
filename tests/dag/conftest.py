"""A personal pool for DAGs: collector, negotiator, startd (4 slots) and schedd on
loopback, found through CONDOR_CONFIG by condor_submit_dag and by the condor_dagman the
schedd starts; the tools first on the PATH, as a user has them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing import personal
from condorx.testing.pool import LocalPool

# DAGMan looks at its nodes log often here, as HTCondor's does every 5 s.
DAG_CONFIG = "DAGMAN_USER_LOG_SCAN_INTERVAL = 1\n"


@pytest.fixture
def dag_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalPool]:
    yield from personal.personal_pool(tmp_path, monkeypatch, DAG_CONFIG)
