"""The queue's rows read back at start-up, a batch at a time in one call into the core:
every row as it was written, across batch boundaries, and a damaged row named by its
job id."""

from __future__ import annotations

import pytest

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.schedd import store as store_module
from condorx.daemons.schedd.store import Store, ad_to_blob
from condorx.transport.wire import WireError


def _ad(proc: int) -> ClassAd:
    ad = ClassAd()
    ad["ProcId"] = proc
    ad["Args"] = f"run {proc}"
    ad["Requirements"] = ExprTree(f"TARGET.Memory >= {proc}")
    return ad


def test_rows_come_back_as_written_across_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "_LOAD_BATCH", 3)  # 10 rows: four batches
    s = Store(tmp_path / "q.db")
    s.commit([((1, p), ad_to_blob(_ad(p))) for p in range(-1, 9)], [], {})
    rows = list(s.rows())
    assert [(c, p) for c, p, _ in rows] == [(1, p) for p in range(-1, 9)]
    for _, p, ad in rows:
        assert ad.printOld() == _ad(p).printOld()


def test_a_damaged_row_is_named_by_its_job_id(tmp_path):
    s = Store(tmp_path / "q.db")
    good = ad_to_blob(_ad(0))
    s.commit([((7, 0), good), ((7, 1), b"\x81\xa1A\xc1")], [], {})  # a reserved byte
    with pytest.raises(WireError, match=r"job queue row 7\.1: attribute A: malformed"):
        list(s.rows())
