"""condor_hold, condor_release, condor_rm, condor_qedit, condor_prio and condor_history on a
real schedd, with the job event log they write."""

from __future__ import annotations

import getpass

from jobs import cluster, procs
from test_submit_query import _ads, _rows


def test_hold_then_release(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(2))
    out = schedd.cli("condor_hold", f"{c}.1", "-reason", "disk is full").stdout
    assert f"Job {c}.1 held" in out
    rows = _rows(
        schedd,
        [
            "ProcId",
            "JobStatus",
            "HoldReason",
            "HoldReasonCode",
            "HoldReasonSubCode",
            "NumHolds",
            "LastJobStatus",
        ],
        f"ClusterId == {c}",
    )
    assert rows == [[0, 1, None, None, None, 0, None], [1, 5, "disk is full", 1, 0, 1, 1]]
    held = schedd.cli("condor_q", "-hold").stdout
    assert f"{c}.1" in held and "disk is full" in held
    schedd.cli("condor_release", str(c))
    rows = _rows(
        schedd,
        ["JobStatus", "HoldReason", "LastHoldReason", "LastHoldReasonCode", "ReleaseReason"],
        f"ClusterId == {c} && ProcId == 1",
    )
    assert rows == [
        [1, None, "disk is full", 1, f"via condor_release (by user {getpass.getuser()})"]
    ]


def test_remove_moves_jobs_to_history(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(3))
    out = schedd.cli("condor_rm", str(c)).stdout
    assert f"All jobs in cluster {c} have been marked for removal" in out
    assert _rows(schedd, ["ProcId"], f"ClusterId == {c}") == []
    hist = schedd.cli(
        "condor_history", "-af", "ClusterId", "ProcId", "JobStatus", "RemoveReason"
    ).stdout
    assert hist.splitlines() == [
        f"{c} {p} 3 via condor_rm (by user {getpass.getuser()})" for p in (2, 1, 0)
    ]
    table = schedd.cli("condor_history").stdout.splitlines()
    assert table[0].split() == ["ID", "OWNER", "SUBMITTED", "RUN_TIME", "ST", "COMPLETED", "CMD"]
    assert f"{c}.0" in table[-1] and " X " in table[-1]


def test_remove_by_constraint(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(6))
    schedd.cli("condor_rm", "-constraint", f"ClusterId == {c} && ProcId % 2 == 0")
    assert _rows(schedd, ["ProcId"], f"ClusterId == {c}") == [[1], [3], [5]]


def test_user_log_records_submit_hold_release_abort(schedd):
    log = schedd.root / "job.log"
    c = schedd.call(schedd.client().submit, cluster(schedd.root, UserLog="job.log"), procs(1))
    schedd.cli("condor_hold", f"{c}.0")
    schedd.cli("condor_release", f"{c}.0")
    schedd.cli("condor_rm", f"{c}.0")
    text = log.read_text()
    heads = [ln.split(" ")[0:2] for ln in text.splitlines() if ln[:3].isdigit()]
    job = f"({c:03d}.000.000)"
    assert heads == [["000", job], ["012", job], ["013", job], ["009", job]]
    assert "Job submitted from host: <127.0.0.1:" in text
    assert "\tCode 1 Subcode 0\n" in text
    assert text.count("...\n") == 4


def test_qedit_and_prio(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(2))
    schedd.cli("condor_qedit", f"{c}.0", "RequestMemory", "2048")
    schedd.cli("condor_qedit", "-constraint", f"ClusterId == {c}", "Flavor", '"mint"')
    schedd.cli("condor_prio", "-p", "5", str(c))
    schedd.cli("condor_prio", "+3", f"{c}.1")
    rows = _rows(schedd, ["RequestMemory", "Flavor", "JobPrio"], f"ClusterId == {c}")
    assert rows == [[2048, "mint", 5], [128, "mint", 8]]
    r = schedd.cli("condor_qedit", f"{c}.0", "Owner", '"eve"', check=False)
    assert r.returncode != 0 and "Owner" in r.stderr
    assert _ads(schedd, f"ClusterId == {c} && ProcId == 0")[0]["Owner"] == getpass.getuser()
