"""A condorx pool with a few jobs, for HTCondor's own bindings to query."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import LocalPool

JOBS = """\
executable = /bin/true
arguments = "a 'b c'"
+Flavor = "mint"
queue 3
"""


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    """Collector and schedd, with one cluster of three jobs."""
    pool = LocalPool(Path(tmp_path_factory.mktemp("pool")))
    try:
        pool.start("collector", "schedd")
        pool.submit(JOBS)
        yield pool
    finally:
        pool.stop()
