"""The accountant's records on disk: written whole each cycle, read back at start-up, in
the row format and in the first (an object per record) alike; a file that does not read
costs a warning, never the negotiator."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from condorx.daemons.negotiator.accounting import Accounting


def test_records_and_group_records_come_back(tmp_path: Path):
    path = tmp_path / "Accountantnew.log"
    a = Accounting(path, 86400.0, 1000.0)
    a.accountant.set_factor("group_a", 50.0)
    a.charge(1_700_000_000.0, {"group_a.alice": 3.0, "group_a": 3.0})
    a.charge(1_700_003_600.0, {"group_a.alice": 3.0, "group_a": 3.0})
    back = Accounting(path, 86400.0, 1000.0)
    # What is in use now is not kept: the next cycle counts it from the slots.
    kept = [(n, r, f, 0.0, u, b, t) for n, r, f, _, u, b, t in a.accountant.records()]
    assert back.accountant.records() == kept
    assert {r[0] for r in kept} == {"group_a", "group_a.alice"}
    assert back.accountant.factor("group_a") == 50.0
    assert json.loads(path.read_text())["fields"][0] == "name"


def test_the_first_format_still_reads(tmp_path: Path):
    path = tmp_path / "Accountantnew.log"
    old = {
        "name": "alice",
        "real": 2.5,
        "factor": 10.0,
        "in_use": 1.0,
        "accumulated": 3600.0,
        "begin": 1_700_000_000.0,
        "last": 1_700_003_600.0,
    }
    path.write_text(json.dumps({"users": [old]}, indent=1))
    a = Accounting(path, 86400.0, 1000.0)
    assert a.accountant.records() == [
        ("alice", 2.5, 10.0, 0.0, 3600.0, 1_700_000_000.0, 1_700_003_600.0)
    ]


def test_a_file_that_does_not_read_is_named_and_skipped(tmp_path: Path, caplog):
    caplog.set_level(logging.WARNING, logger="condorx.negotiator")
    path = tmp_path / "Accountantnew.log"
    path.write_text('["not", "a", "document"]')
    assert Accounting(path, 86400.0, 1000.0).accountant.records() == []
    assert f"cannot read the accountant's records in {path}: not a document" in caplog.text
    path.write_text(json.dumps({"fields": ["name", "real"], "records": [["bob", "x"]]}))
    assert Accounting(path, 86400.0, 1000.0).accountant.records() == []
    assert "a record that does not read" in caplog.text
