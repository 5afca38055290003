"""A condorx pool with a few jobs, for HTCondor's own bindings to query."""

from __future__ import annotations

from collections.abc import Iterator

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
    with LocalPool.running(tmp_path_factory.mktemp("pool"), "collector", "schedd") as pool:
        pool.submit(JOBS)
        yield pool
