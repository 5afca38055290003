"""HTCondor's legacy Python bindings (htcondor 24.0.24, module `htcondor`), unchanged, on
a condorx pool: the collector's and schedd's queries, a submission (the legacy module
asks for the schedd's capabilities after NewProc, and commits twice), an edit, an
action and the history, over FS with AES."""

from __future__ import annotations

import getpass
import os

import pytest

from condorx.testing import bindings

pytestmark = pytest.mark.skipif(
    not os.path.exists(bindings.LEGACY_PYTHON),
    reason="bin/setup test makes the legacy bindings' venv (.venv-htcondor24)",
)

LEGACY = """
import htcondor
coll = htcondor.Collector()
out = {"version": htcondor.version().split()[1]}
out["schedds"] = [a["Name"] for a in coll.query(htcondor.AdTypes.Schedd)]
schedd = htcondor.Schedd(coll.locate(htcondor.DaemonTypes.Schedd))
out["queued"] = sorted(j["ProcId"] for j in schedd.query("ClusterId == 1", ["ProcId"]))
sub = htcondor.Submit({"executable": "/bin/echo", "arguments": "legacy $(ProcId)",
                       "My.Shade": '"ochre"'})
cluster = schedd.submit(sub, count=2).cluster()
jobs = schedd.query(f"ClusterId == {cluster}", ["ProcId", "Owner", "Args", "Shade"])
out["submitted"] = sorted([j["ProcId"], j["Owner"], j["Args"], j["Shade"]] for j in jobs)
schedd.edit([f"{cluster}.0"], "Shade", '"umber"')
out["edited"] = schedd.query(f"ClusterId == {cluster} && ProcId == 0", ["Shade"])[0]["Shade"]
r = schedd.act(htcondor.JobAction.Remove, [f"{cluster}.0", f"{cluster}.1"])
out["removed"] = r["TotalSuccess"]
result(out)
"""

FS_AES = """\
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_ENCRYPTION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = FS
"""


def test_the_legacy_bindings_query_submit_edit_and_act(pool):
    r = bindings.run(pool, LEGACY, FS_AES, python=bindings.LEGACY_PYTHON)
    assert r.returncode == 0, r.stderr
    v = r.value
    user = getpass.getuser()
    assert v["version"] == "24.0.24"
    assert v["schedds"] == ["test-schedd@loopback"]
    assert v["queued"] == [0, 1, 2]
    assert v["submitted"] == [[p, user, f"legacy {p}", "ochre"] for p in range(2)]
    assert v["edited"] == "umber"
    assert v["removed"] == 2
