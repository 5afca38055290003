"""`Schedd.submit` and `Schedd.edit` of HTCondor's bindings on a condorx schedd: the job
ads HTCondor's own submit code builds go through the queue-management RPCs as one
transaction, with the owner taken from the authenticated identity."""

from __future__ import annotations

import getpass

from condorx.testing import bindings

SUBMIT = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
sub = htcondor.Submit({
    "executable": "/bin/echo",
    "arguments": "hello $(ProcId)",
    "output": "out.$(ProcId)",
    "My.Color": '"teal"',
})
r = schedd.submit(sub, count=3)
cluster = r.cluster()
names = ["ProcId", "Owner", "Args", "Color", "Out", "JobStatus"]
jobs = schedd.query(f"ClusterId == {cluster}", names)
out = {"cluster": cluster, "procs": r.num_procs(),
       "jobs": sorted([[j.get(n) for n in names] for j in jobs])}
schedd.edit(f"ClusterId == {cluster}", "Color", '"plum"')
schedd.edit([f"{cluster}.1"], "Rank", "42")
edited = schedd.query(f"ClusterId == {cluster}", ["ProcId", "Color", "Rank"])
out["edited"] = sorted([[j["ProcId"], j["Color"], j.get("Rank")] for j in edited])
result(out)
"""


def test_submit_and_edit_through_the_queue_management_protocol(pool):
    r = bindings.run(pool, SUBMIT)
    assert r.returncode == 0, r.stderr
    v = r.value
    user = getpass.getuser()
    assert v["procs"] == 3
    assert v["jobs"] == [[p, user, f"hello {p}", "teal", f"out.{p}", 1] for p in range(3)]
    # Rank is 0.0 unless the description sets it.
    assert v["edited"] == [[0, "plum", 0.0], [1, "plum", 42], [2, "plum", 0.0]]
