"""Which attributes of a queued job may change, as HTCondor's schedd reads its
configuration: the immutable ones (SYSTEM_IMMUTABLE_JOB_ATTRS, IMMUTABLE_JOB_ATTRS)
never, the protected ones (PROTECTED_JOB_ATTRS) only by a queue super user."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jobs import cluster, procs
from test_security import _tcp_client
from test_submit_query import _rows

from condorx.testing.schedd import LocalSchedd
from condorx.transport.wire import RemoteError

RULES = """\
QUEUE_SUPER_USERS = root
IMMUTABLE_JOB_ATTRS = Flavor
PROTECTED_JOB_ATTRS = Shade
"""


@pytest.fixture
def ruled(tmp_path: Path) -> Iterator[LocalSchedd]:
    s = LocalSchedd(tmp_path, RULES)
    try:
        s.start()
        yield s
    finally:
        s.stop()


def test_immutable_attributes_never_change_and_protected_ones_only_for_super_users(ruled):
    c = ruled.call(ruled.client().submit, cluster(ruled.root), procs(1))
    job = f"{c}.0"
    # root is a queue super user here: protected attributes are its to change...
    ruled.cli("condorx.cli.edit:qedit", job, "Shade", '"teal"')
    # ...immutable ones are nobody's.
    for name in ("Flavor", "JobUniverse"):
        r = ruled.cli("condorx.cli.edit:qedit", job, name, "1", check=False)
        assert r.returncode != 0 and name in r.stderr
    mallory = _tcp_client(ruled, "mallory")
    m = ruled.call(mallory.submit, cluster(ruled.root), procs(1))
    with pytest.raises(RemoteError, match="Shade may be changed by a queue super user only"):
        ruled.call(mallory.edit, {"Shade": '"red"'}, [f"{m}.0"])
    ruled.call(mallory.edit, {"Color": '"red"'}, [f"{m}.0"])  # an ordinary attribute
    assert _rows(ruled, ["Shade", "Color"], f"ClusterId == {m}") == [[None, "red"]]
    assert _rows(ruled, ["Shade"], f"ClusterId == {c}") == [["teal"]]
