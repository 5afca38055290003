"""A personal pool for real HTCondor client libraries: its daemons on loopback, and the
process environment set so that the library's own `condor_submit`, `condor_q` and
`condor_rm` calls reach it, as they would a personal HTCondor."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing import personal
from condorx.testing.pool import LocalPool


@pytest.fixture
def personal_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalPool]:
    """Collector, negotiator, startd (4 slots) and schedd, found through CONDOR_CONFIG by
    any program this test starts, with the tools first on the PATH
    (`condorx.testing.personal`)."""
    yield from personal.personal_pool(tmp_path, monkeypatch)
