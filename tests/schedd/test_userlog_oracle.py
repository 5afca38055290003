"""Every event the schedd writes to a job's log, read back by HTCondor's own reader
(`htcondor2.JobEventLog`): each kind with what the schedd puts in it, the values its
readers see as they would see HTCondor's. (An eviction written without its usage lines
once stopped HTCondor's reader at the log's first eviction.)"""

from __future__ import annotations

from pathlib import Path

import htcondor2
import pytest

from condorx.daemons.schedd.queue import Event, EventKind
from condorx.daemons.schedd.userlog import FORMATS, format_event

T = htcondor2.JobEventType
HOST = "<127.0.0.1:9618?alias=vm>"
CASES = [
    (EventKind.SUBMIT, {}, T.SUBMIT, {}),
    (EventKind.EXECUTE, {"host": HOST}, T.EXECUTE, {"ExecuteHost": HOST}),
    (EventKind.EVICT, {"reason": "the schedd vacated the job"}, T.JOB_EVICTED, {
        "Reason": "the schedd vacated the job", "Checkpointed": False,
        "TerminatedAndRequeued": False,
    }),
    (EventKind.EVICT, {}, T.JOB_EVICTED, {"Checkpointed": False}),
    (EventKind.SUSPEND, {}, T.JOB_SUSPENDED, {"NumberOfPIDs": 1}),
    (EventKind.UNSUSPEND, {}, T.JOB_UNSUSPENDED, {}),
    (EventKind.HOLD, {"reason": "held by alice", "code": 1, "subcode": 0}, T.JOB_HELD, {
        "HoldReason": "held by alice", "HoldReasonCode": 1, "HoldReasonSubCode": 0,
    }),
    (EventKind.RELEASE, {"reason": "released by alice"}, T.JOB_RELEASED, {
        "Reason": "released by alice",
    }),
    (EventKind.ABORT, {"reason": "removed by alice"}, T.JOB_ABORTED, {
        "Reason": "removed by alice",
    }),
    (EventKind.TERMINATE, {"code": 3}, T.JOB_TERMINATED, {
        "TerminatedNormally": True, "ReturnValue": 3,
    }),
    (EventKind.TERMINATE, {"signal": 9}, T.JOB_TERMINATED, {
        "TerminatedNormally": False, "TerminatedBySignal": 9,
    }),
    (EventKind.GRID_SUBMIT, {"resource": "condor s c", "grid_id": "condor s c 4.0"},
     T.GRID_SUBMIT, {"GridResource": "condor s c", "GridJobId": "condor s c 4.0"}),
    (EventKind.GRID_DOWN, {"resource": "condor s c"}, T.GRID_RESOURCE_DOWN, {
        "GridResource": "condor s c",
    }),
    (EventKind.GRID_UP, {"resource": "condor s c"}, T.GRID_RESOURCE_UP, {
        "GridResource": "condor s c",
    }),
]  # fmt: skip


def test_every_kind_the_log_shows_is_tested():
    assert {kind for kind, *_ in CASES} == set(FORMATS)


@pytest.mark.parametrize(("kind", "info", "expected", "values"), CASES)
def test_htcondors_reader_reads_the_event(tmp_path: Path, kind, info, expected, values):
    # Each event after a submit and before another: the reader must get past it whole.
    events = [
        Event(EventKind.SUBMIT, (7, 0)),
        Event(kind, (7, 0), info),
        Event(EventKind.SUBMIT, (7, 1)),
    ]
    text = "".join(
        format_event(ev, "2026-12-03 06:05:06", "<127.0.0.1:41859>") or "" for ev in events
    )
    (tmp_path / "job.log").write_text(text)
    read = list(htcondor2.JobEventLog(str(tmp_path / "job.log")).events(0))
    assert [(e.type, e.cluster, e.proc) for e in read] == [
        (T.SUBMIT, 7, 0),
        (expected, 7, 0),
        (T.SUBMIT, 7, 1),
    ]
    assert {k: read[1].get(k) for k in values} == values
