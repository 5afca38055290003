"""Periodic expressions every PERIODIC_EXPR_INTERVAL, and OnExitRemove/OnExitHold at exit."""

from __future__ import annotations

import time
from pathlib import Path

from jobs import cluster, procs
from test_submit_query import _rows

from condorx.client.schedd import ScheddClient
from condorx.testing.pool import wait_for
from condorx.transport import locate, security
from condorx.transport.connection import Credentials
from condorx.transport.wire import Expr


def test_periodic_hold_then_release_then_remove(schedd):
    ad = cluster(
        schedd.root,
        PeriodicHold=Expr("NumHolds < 1"),
        PeriodicHoldSubCode=42,
        PeriodicRelease=Expr("JobStatus == 5 && HoldReasonCode == 3"),
        PeriodicRemove=Expr("NumHolds >= 1 && JobStatus == 1"),
    )
    c = schedd.call(schedd.client().submit, ad, procs(1))
    hist = wait_for(
        lambda: (
            schedd.cli(
                "condor_history",
                "-af",
                "ClusterId",
                "NumHolds",
                "LastHoldReasonCode",
                "LastHoldReasonSubCode",
                "LastHoldReason",
                "RemoveReason",
            ).stdout
        ),
        "the job to be held, released and removed by policy",
    )
    assert hist.startswith(
        f"{c} 1 3 42 The job attribute PeriodicHold expression 'NumHolds < 1'"
        " evaluated to TRUE The job attribute PeriodicRemove expression"
    )


def test_current_time_in_a_periodic_expression_is_the_time_now(schedd):
    # The commonest policy there is: no job ad defines CurrentTime, yet it is the time now,
    # as in HTCondor. QDate is in the past, so the first evaluation holds the job.
    ad = cluster(schedd.root, PeriodicHold=Expr("(CurrentTime - QDate) >= 0"))
    c = schedd.call(schedd.client().submit, ad, procs(1))
    wait_for(
        lambda: (
            schedd.cli("condor_q", "-af", "ClusterId", "JobStatus", "HoldReasonCode").stdout.split()
            == [str(c), "5", "3"]
        ),
        "the periodic hold",
    )
    now = int(schedd.cli("condor_q", str(c), "-af", "CurrentTime").stdout)
    assert abs(now - time.time()) < 5


def test_a_condor_hold_is_not_undone_by_periodic_release(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root, PeriodicRelease=True), procs(1))
    schedd.cli("condor_hold", str(c))
    other = schedd.call(schedd.client().submit, cluster(schedd.root, PeriodicHold=True), procs(1))
    wait_for(lambda: _rows(schedd, ["JobStatus"], f"ClusterId == {other}") == [[5]], "policy hold")
    assert _rows(schedd, ["JobStatus", "HoldReasonCode"], f"ClusterId == {c}") == [[5, 1]]


def _daemon(s):
    key = Path(locate.pool_key_file(s.cfg)).read_bytes().strip()
    return ScheddClient(
        s.cfg, s.address_file.read_text().splitlines()[0], Credentials(pool_key=key)
    )


def test_exit_completes_holds_or_requeues_by_the_job_policy(schedd):
    done = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    held = schedd.call(
        schedd.client().submit, cluster(schedd.root, OnExitHold=Expr("ExitCode != 0")), procs(1)
    )
    again = schedd.call(
        schedd.client().submit, cluster(schedd.root, OnExitRemove=Expr("ExitCode == 0")), procs(1)
    )
    pool = _daemon(schedd)
    assert schedd.call(pool.exited, f"{done}.0", 0) == "completed"
    assert schedd.call(pool.exited, f"{held}.0", 3) == "held"
    assert schedd.call(pool.exited, f"{again}.0", 1) == "requeued"
    assert _rows(schedd, ["ClusterId", "JobStatus", "HoldReasonCode", "ExitCode"]) == [
        [held, 5, 3, 3],
        [again, 1, None, 1],
    ]
    hist = schedd.cli("condor_history", "-af", "ClusterId", "JobStatus", "ExitCode").stdout
    assert hist == f"{done} 4 0\n"
    assert security.POOL_IDENTITY == "condor"
