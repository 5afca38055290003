"""What every daemon answers HTCondor's bindings: `htcondor2.ping` (DC_SEC_QUERY: may
I run this command?) and `htcondor2.RemoteParam` (DC_CONFIG_VAL: the daemon's view of
its configuration)."""

from __future__ import annotations

from condorx.testing import bindings

DAEMON_CORE = """
import htcondor2 as htcondor
coll = htcondor.Collector()
schedd_ad = coll.locate(htcondor.DaemonTypes.Schedd)
out = {}
ping = htcondor.ping(schedd_ad, "READ")
out["ping_read"] = [ping.get("AuthorizationSucceeded"), ping.get("AuthCommand")]
ping = htcondor.ping(schedd_ad, "WRITE")
out["ping_write"] = [ping.get("AuthorizationSucceeded"), ping.get("MyRemoteUserName", "")]
rp = htcondor.RemoteParam(schedd_ad)
out["name"] = rp["SCHEDD_NAME"]
out["spool"] = rp.get("SPOOL")
out["missing"] = rp.get("NO_SUCH_KNOB_ANYWHERE", "absent")
out["has_log"] = "LOG" in rp
result(out)
"""


def test_ping_and_remote_param_on_the_schedd(pool):
    r = bindings.run(pool, DAEMON_CORE)
    assert r.returncode == 0, r.stderr
    v = r.value
    assert v["ping_read"][0] is True
    assert v["ping_write"][0] is True
    assert v["name"] == "test-schedd@loopback"
    assert v["spool"] == str(pool.root / "spool")
    assert v["missing"] == "absent"
    assert v["has_log"] is True
