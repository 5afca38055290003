"""`Schedd.history` of HTCondor's bindings on a condorx schedd (QUERY_SCHEDD_HISTORY):
the finished jobs, newest first, chosen by a constraint, projected and limited."""

from __future__ import annotations

import time

from condorx.testing import bindings

HISTORY = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
every = [(a["ClusterId"], a["ProcId"]) for a in schedd.history("true", [])]
chosen = [a["ProcId"] for a in schedd.history("ProcId > 0", ["ProcId", "JobStatus"])]
keys = sorted(next(iter(schedd.history("ProcId == 1", ["ProcId", "Flavor"]))).keys())
limited = len(list(schedd.history("true", [], match=2)))
result({"every": every, "chosen": chosen, "keys": keys, "limited": limited})
"""


def test_history_of_removed_jobs(pool):
    pool.cli("condorx.cli.act:rm", "-all")
    deadline = time.monotonic() + 60
    while pool.cli("condorx.cli.q", "-af", "ProcId").stdout.strip():
        assert time.monotonic() < deadline, "the removed jobs never left the queue"
        time.sleep(0.2)
    r = bindings.run(pool, HISTORY)
    assert r.returncode == 0, r.stderr
    v = r.value
    assert sorted(v["every"]) == [[1, 0], [1, 1], [1, 2]]
    assert sorted(v["chosen"]) == [1, 2]
    assert v["keys"] == ["Flavor", "ProcId"]
    assert v["limited"] == 2
