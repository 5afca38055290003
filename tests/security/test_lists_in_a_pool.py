"""The ALLOW / DENY lists on real daemons: condorx's tools and HTCondor's bindings are
refused what the lists do not grant, with a reason naming the lists (condorx's tools)
or HTCondor's DENIED (its clients), and keep what they do grant."""

from __future__ import annotations

import getpass

from condorx.testing import bindings
from condorx.testing.pool import LocalPool

JOB = "executable = /bin/true\nqueue\n"

SUBMIT = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
out = {"jobs": len(schedd.query(projection=["ProcId"]))}
try:
    schedd.submit(htcondor.Submit({"executable": "/bin/true"}))
    out["submit"] = "accepted"
except Exception as e:
    out["submit"] = str(e)
result(out)
"""


def test_deny_write_refuses_a_users_submissions_but_not_their_reads(tmp_path):
    me = getpass.getuser()
    config = f"DENY_WRITE = {me}@*\n"
    with LocalPool.running(tmp_path, "collector", "schedd", config=config) as pool:
        (pool.root / "job.sub").write_text(JOB)
        r = pool.cli("condorx.cli.submit", "job.sub", check=False)
        assert r.returncode != 0
        assert "needs WRITE permission" in r.stderr and "DENY_WRITE" in r.stderr
        assert pool.cli("condorx.cli.q", "-af", "ProcId").returncode == 0
        b = bindings.run(pool, SUBMIT)
        assert b.returncode == 0, b.stderr
        assert b.value["jobs"] == 0
        assert "DENIED" in b.value["submit"]


def test_allow_write_for_someone_else_refuses_this_user(tmp_path):
    # ADMINISTRATOR implies WRITE, and the user the daemons run as is one by default.
    config = "ALLOW_WRITE = someone-else@*\nALLOW_ADMINISTRATOR = someone-else@*\n"
    with LocalPool.running(tmp_path, "collector", "schedd", config=config) as pool:
        (pool.root / "job.sub").write_text(JOB)
        r = pool.cli("condorx.cli.submit", "job.sub", check=False)
        assert r.returncode != 0 and "needs WRITE permission" in r.stderr


def test_a_host_the_lists_deny_may_not_read(tmp_path):
    """The schedd's DENY_READ by address: the loopback the tools and the bindings come
    from (the collector, which still answers, locates the schedd for the bindings)."""
    config = "SCHEDD.DENY_READ = 127.0.0.1\n"
    with LocalPool.running(tmp_path, "collector", "schedd", config=config) as pool:
        r = pool.cli("condorx.cli.q", "-af", "ProcId", check=False)
        assert r.returncode != 0 and "needs READ permission" in r.stderr
        b = bindings.run(pool, "import htcondor2 as h\nresult(len(h.Schedd().query()))\n")
        assert b.returncode != 0 and "DENIED" in b.stderr
