"""Jobs submitted to a real schedd are in its queue, with the attributes the schedd owns."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
from jobs import cluster, procs

from condorx.classad import ExprTree
from condorx.client.schedd import ScheddClient
from condorx.transport import locate, security
from condorx.transport.connection import Credentials
from condorx.transport.wire import RemoteError


def _rows(s, exprs, constraint=None):
    async def go():
        out = []
        async for chunk in s.client().query_rows(exprs, constraint):
            out.extend(chunk)
        return out

    return s.call(go)


def _ads(s, constraint=None):
    async def go():
        out = []
        async for chunk in s.client().query_ads(constraint):
            out.extend(chunk)
        return out

    return s.call(go)


def test_submit_assigns_ids_owner_and_idle_status(schedd):
    first = schedd.call(schedd.client().submit, cluster(schedd.root), procs(3))
    second = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    assert second == first + 1
    rows = _rows(schedd, ["ClusterId", "ProcId", "Owner", "JobStatus", "QDate > 0"])
    assert rows == [
        [first, 0, getpass.getuser(), 1, True],
        [first, 1, getpass.getuser(), 1, True],
        [first, 2, getpass.getuser(), 1, True],
        [second, 0, getpass.getuser(), 1, True],
    ]


def test_client_cannot_forge_the_owner(schedd):
    # As HTCondor's schedd has it: only a queue super user may name another owner (see
    # test_security); anyone else naming one is refused, and no job is made.
    key = Path(locate.pool_key_file(schedd.cfg)).read_bytes().strip()
    address = schedd.address_file.read_text().splitlines()[0]
    mallory = ScheddClient(
        schedd.cfg, address, Credentials(token=security.make_token(key, "mallory"))
    )
    with pytest.raises(RemoteError, match="may not submit jobs as 'someoneelse'"):
        schedd.call(mallory.submit, cluster(schedd.root, Owner="someoneelse"), procs(1))
    assert _rows(schedd, ["Owner"]) == []
    c = schedd.call(mallory.submit, cluster(schedd.root), procs(1))
    assert _rows(schedd, ["Owner"], f"ClusterId == {c}") == [["mallory"]]


def test_full_ads_show_cluster_attributes_through_each_proc(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), [{}, {"Args": "120"}])
    ads = _ads(schedd, f"ClusterId == {c}")
    assert [ad["ProcId"] for ad in ads] == [0, 1]
    assert [ad["Args"] for ad in ads] == ["60", "120"]
    assert all(ad["Cmd"] == "/bin/sleep" for ad in ads)
    assert ads[1]["Requirements"].sameAs(
        ExprTree('(TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64")')
    )
    assert ads[0]["GlobalJobId"].startswith("test-schedd@loopback#")


def test_constraint_selects_and_expressions_are_evaluated_per_job(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(5))
    rows = _rows(schedd, ["ProcId * 10", "RequestMemory + 1"], f"ClusterId == {c} && ProcId >= 3")
    assert rows == [[30, 129], [40, 129]]


def test_condor_q_batch_and_nobatch_views(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(4))
    batch = schedd.cli("condor_q").stdout
    assert f"ID: {c}" in batch and f"{c}.0-3" in batch
    assert "Total for query: 4 jobs; 0 completed, 0 removed, 4 idle, 0 running, 0 held" in batch
    nobatch = schedd.cli("condor_q", "-nobatch").stdout.splitlines()
    job_lines = [ln for ln in nobatch if ln.strip().startswith(f"{c}.")]
    assert len(job_lines) == 4
    assert " I " in job_lines[0] and job_lines[0].rstrip().endswith("sleep 60")
    af = schedd.cli("condor_q", "-af", "ClusterId", "ProcId", "JobStatus").stdout
    assert af.splitlines() == [f"{c} {p} 1" for p in range(4)]
    one = schedd.cli("condor_q", f"{c}.2", "-af", "ProcId").stdout
    assert one == "2\n"


def test_condor_q_long_prints_whole_ads(schedd):
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    text = schedd.cli("condor_q", "-l").stdout
    assert f"ClusterId = {c}" in text and "ProcId = 0" in text and 'Cmd = "/bin/sleep"' in text


def test_a_bad_constraint_is_a_clear_error(schedd):
    r = schedd.cli("condor_q", "-constraint", "ClusterId ==", check=False)
    assert r.returncode != 0
    assert "constraint" in r.stderr and "Traceback" not in r.stderr
