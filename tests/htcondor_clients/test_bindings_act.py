"""`Schedd.act` of HTCondor's bindings on a condorx schedd: ACT_ON_JOBS after forced
authentication (FS), by ids and by constraint, its totals as the bindings report them,
and nothing changed when the client does not confirm."""

from __future__ import annotations

from condorx.testing import bindings

ACT = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
def status():
    return {f"{j['ClusterId']}.{j['ProcId']}": j["JobStatus"]
            for j in schedd.query(projection=["ClusterId", "ProcId", "JobStatus"])}
out = {}
# The bindings send a reason given as (text, code); a bare string they drop.
r = schedd.act(htcondor.JobAction.Hold, ["1.0", "1.1", "9.9"], reason=("held by a test", 7))
out["hold"] = {k: r[k] for k in ("TotalSuccess", "TotalNotFound", "TotalJobAds")}
out["after_hold"] = status()
out["reason"] = schedd.query("ProcId == 0", ["HoldReason"])[0]["HoldReason"]
r = schedd.act(htcondor.JobAction.Hold, ["1.0"])
out["again"] = {k: r[k] for k in ("TotalSuccess", "TotalAlreadyDone")}
r = schedd.act(htcondor.JobAction.Release, "JobStatus == 5")
out["release"] = r["TotalSuccess"]
r = schedd.act(htcondor.JobAction.Remove, "ProcId == 2")
out["remove"] = r["TotalSuccess"]
out["after"] = status()
result(out)
"""


def test_act_holds_releases_and_removes_jobs_by_id_and_by_constraint(pool):
    r = bindings.run(pool, ACT)
    assert r.returncode == 0, r.stderr
    v = r.value
    assert v["hold"] == {"TotalSuccess": 2, "TotalNotFound": 1, "TotalJobAds": 3}
    assert v["after_hold"] == {"1.0": 5, "1.1": 5, "1.2": 1}
    assert v["reason"] == "held by a test"
    assert v["again"] == {"TotalSuccess": 0, "TotalAlreadyDone": 1}
    assert v["release"] == 2
    assert v["remove"] == 1
    assert v["after"]["1.0"] == 1 and v["after"]["1.1"] == 1
    assert v["after"].get("1.2", 3) == 3  # removed (gone, or leaving)


ACT_UNAUTHENTICATED = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
try:
    schedd.act(htcondor.JobAction.Hold, ["1.0"])
except Exception as e:
    result({"error": type(e).__name__})
else:
    result({"error": None})
"""


def test_an_act_that_cannot_authenticate_is_an_error_not_a_crash(pool):
    # The client offers only a method the daemon does not serve here (CLAIMTOBE is not
    # configured): the handshake cannot authenticate, and ACT_ON_JOBS requires it.
    r = bindings.run(pool, ACT_UNAUTHENTICATED, "SEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE\n")
    assert r.returncode == 0, f"the client died ({r.returncode}): {r.stderr[-500:]}"
    assert r.value == {"error": "HTCondorException"}
