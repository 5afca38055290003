"""The gridmanager's plan for one remote schedd, from the two queues as they stand: the
cases a crash or a race leaves behind, which a live pool reaches only by luck."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from condorx.classad import ClassAd
from condorx.daemons.schedd import grid_plan
from condorx.daemons.schedd.grid_job import remote_job
from condorx.daemons.schedd.grid_plan import ROWS
from condorx.daemons.schedd.remote import Resource
from condorx.daemons.schedd.spool import SpoolError
from condorx.language.attrs import JobStatus

RES = Resource("b@host", "<127.0.0.1:9618>")


def local(proc: int, status: JobStatus, grid_id: str | None = None) -> tuple:
    ad = ClassAd({"GlobalJobId": f"a#1.{proc}#0", "JobStatus": int(status), "JobUniverse": 9})
    if grid_id:
        ad["GridJobId"] = f"{RES} {grid_id}"
    return (1, proc), ad


def row(proc: int, remote: str, status: JobStatus) -> list:
    """A remote job as the query returns it (the attributes of ROWS, in order)."""
    cluster, rproc = remote.split(".")
    return [f"a#1.{proc}#0", int(cluster), int(rproc), int(status)] + [None] * (len(ROWS) - 4)


def test_a_remote_job_not_yet_recorded_is_adopted_not_submitted_again():
    found = {"a#1.0#0": [row(0, "7.0", JobStatus.IDLE)]}
    plan = grid_plan.of([local(0, JobStatus.IDLE)], found, RES)
    assert plan.adopt == {(1, 0): "7.0"} and plan.submit == []


def test_an_unknown_job_is_submitted_and_a_vanished_one_held():
    plan = grid_plan.of([local(0, JobStatus.IDLE), local(1, JobStatus.RUNNING, "7.1")], {}, RES)
    assert plan.submit == [(1, 0)]
    assert "no longer in the queue of b@host" in plan.hold[(1, 1)]


def test_the_remote_status_is_mirrored_and_completion_fetched():
    found = {
        "a#1.0#0": [row(0, "7.0", JobStatus.RUNNING)],
        "a#1.1#0": [row(1, "7.1", JobStatus.COMPLETED)],
        "a#1.2#0": [row(2, "7.2", JobStatus.HELD)],
    }
    jobs = [local(p, JobStatus.IDLE, f"7.{p}") for p in range(3)]
    plan = grid_plan.of(jobs, found, RES)
    assert plan.mirror == {(1, 0): JobStatus.RUNNING}
    assert list(plan.finish) == [(1, 1)]
    assert "held by b@host" in plan.hold[(1, 2)]


def test_a_released_job_ignores_its_old_remote_job_still_leaving():
    # Held here (its remote job removed there, still leaving), then released: it is
    # submitted anew, and the old remote job is not taken for it.
    found = {"a#1.0#0": [row(0, "7.0", JobStatus.REMOVED)]}
    plan = grid_plan.of([local(0, JobStatus.IDLE)], found, RES)
    assert plan.submit == [(1, 0)] and plan.adopt == {}
    assert plan.let_go_remote == ["7.0"]


def test_held_removed_and_orphaned_jobs_are_removed_there():
    found = {
        "a#1.0#0": [row(0, "7.0", JobStatus.IDLE)],
        "a#1.1#0": [row(1, "7.1", JobStatus.RUNNING)],
        "a#1.9#0": [row(9, "7.9", JobStatus.IDLE)],  # its local job is gone
        "a#1.8#0": [row(8, "7.8", JobStatus.COMPLETED)],  # finished, never let go
    }
    jobs = [local(0, JobStatus.HELD, "7.0"), local(1, JobStatus.REMOVED, "7.1")]
    plan = grid_plan.of(jobs, found, RES)
    assert sorted(plan.remove_remote) == ["7.0", "7.1", "7.9"]
    assert plan.let_go_remote == ["7.8"]
    assert sorted(plan.detach) == [(1, 0), (1, 1)]


def test_a_second_remote_job_of_one_local_job_is_removed():
    found = {"a#1.0#0": [row(0, "7.0", JobStatus.IDLE), row(0, "8.0", JobStatus.IDLE)]}
    plan = grid_plan.of([local(0, JobStatus.IDLE, "8.0")], found, RES)
    assert plan.remove_remote == ["7.0"] and plan.adopt == {}


def test_the_remote_ad_has_plain_names_and_the_remote_attributes(tmp_path: Path):
    (tmp_path / "run.sh").write_text("#!/bin/sh\n")
    (tmp_path / "data.txt").write_text("x")
    ad = ClassAd(
        {
            "Cmd": str(tmp_path / "run.sh"),
            "Iwd": str(tmp_path),
            "TransferInput": "data.txt",
            "Out": str(tmp_path / "out" / "job.out"),
            "Err": "/dev/null",
            "GlobalJobId": "a#1.0#0",
            "GridResource": str(RES),
            "Owner": getpass.getuser(),  # (another's files are read with its rights)
            "JobUniverse": 9,
            "remote_JobUniverse": 7,
            "remote_Owner": "mallory",
            "UserLog": str(tmp_path / "job.log"),
        }
    )
    attrs, files = remote_job(ad, "a@host", RES)
    assert attrs["Cmd"] == "run.sh" and attrs["TransferInput"] == "data.txt"
    assert attrs["Out"] == "job.out" and attrs["Err"] == "/dev/null"
    assert attrs["JobUniverse"] == 7 and "Owner" not in attrs
    assert attrs["SubmitterGlobalJobId"] == "a#1.0#0" and attrs["SubmitterSchedd"] == "a@host"
    assert not {"GridResource", "Iwd", "UserLog", "remote_JobUniverse"} & set(attrs)
    assert files == {"run.sh": b"#!/bin/sh\n", "data.txt": b"x"}
    ad["TransferInput"] = "missing.txt"
    with pytest.raises(SpoolError, match="missing.txt"):
        remote_job(ad, "a@host", RES)
