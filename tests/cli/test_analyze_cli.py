"""condor_q -better-analyze and -analyze over a live pool: the schedd's jobs against the
collector's slots, in the shape of HTCondor's report."""

from __future__ import annotations

import trio

from condorx.client.schedd import ScheddClient
from condorx.testing.pool import wait_for
from condorx.transport.wire import Expr


def _submit(pool, requirements: str, **extra) -> int:
    ad = {
        "Cmd": "/bin/sleep",
        "Args": "60",
        "Iwd": str(pool.root),
        "JobUniverse": 5,
        "RequestCpus": 1,
        "RequestMemory": 10**9,  # more than any slot has: it stays idle
        "Requirements": Expr(requirements),
        **extra,
    }
    return trio.run(ScheddClient(pool.cfg).submit, ad, [{}])


def _slots(pool) -> int:
    out = pool.cli("condorx.cli.status", "-af", "Name").stdout
    return len(out.split())


def test_better_analyze_reports_each_clause_against_the_live_slots(running):
    n = wait_for(lambda: _slots(running), "the startd's slots in the collector")
    c = _submit(running, '(TARGET.Memory >= RequestMemory) && (TARGET.OpSys == "LINUX")')
    out = running.cli("condorx.cli.q", f"{c}.0", "-better-analyze").stdout
    jid = f"{c}.000"
    assert f"The Requirements expression for job {jid} is\n\n" in out
    assert '    (TARGET.Memory >= RequestMemory) && (TARGET.OpSys == "LINUX")\n' in out
    assert f"Job {jid} defines the following attributes:\n\n    RequestMemory = 1000000000\n" in out
    assert (
        f"The Requirements expression for job {jid} reduces to these conditions:\n\n"
        "         Slots\nStep    Matched  Condition\n-----  --------  ---------\n"
        f"[0]           0  TARGET.Memory >= RequestMemory\n"
        f'[1]    {n:>8}  TARGET.OpSys == "LINUX"\n'
    ) in out
    assert (
        f"{jid}:  Run analysis summary ignoring user priority.  Of {n} machines,\n"
        f"  {n:>5} are rejected by your job's requirements\n"
        f"  {0:>5} reject your job because of their own requirements\n"
        f"  {0:>5} match and are already running your jobs\n"
        f"  {0:>5} match but are serving other users\n"
        f"  {0:>5} are able to run your job\n"
    ) in out
    assert "WARNING:  Be advised:" in out


def test_analyze_says_a_held_job_is_held(running):
    wait_for(lambda: _slots(running), "the startd's slots in the collector")
    c = _submit(running, "true", JobStatus=5)
    out = running.cli("condorx.cli.q", f"{c}.0", "-analyze").stdout
    assert f"{c}.000:  Job is held.\n\nHold reason: submitted on hold\n" in out
