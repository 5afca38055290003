"""A client that does not negotiate (SEC_CLIENT_NEGOTIATION = NEVER) sends its commands
raw; for one that needs a proven peer (a queue write, QMGMT_WRITE_CMD) the daemon
authenticates in the stream, right after the command's number, as HTCondor's
DaemonCore does and its ConnectQ expects. A peer no method proves is refused."""

from __future__ import annotations

import getpass

from condorx.testing import bindings

SUBMIT_AND_REMOVE = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
cluster = schedd.submit(htcondor.Submit({"executable": "/bin/true", "hold": "true"})).cluster()
owner = schedd.query(f"ClusterId == {cluster}", ["Owner"])[0]["Owner"]
done = schedd.act(htcondor.JobAction.Remove, f"ClusterId == {cluster}")["TotalSuccess"]
result([owner, done])
"""

RAW = "SEC_CLIENT_NEGOTIATION = NEVER\n"


def test_a_raw_queue_write_is_authenticated_in_the_stream(pool):
    r = bindings.run(pool, SUBMIT_AND_REMOVE, RAW + "SEC_CLIENT_AUTHENTICATION_METHODS = FS\n")
    assert r.returncode == 0, r.stderr
    assert r.value == [getpass.getuser(), 1]


def test_a_raw_queue_write_nobody_proves_is_refused(pool):
    # CLAIMTOBE is not served here: no method both sides share proves the client.
    r = bindings.run(
        pool, SUBMIT_AND_REMOVE, RAW + "SEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE\n"
    )
    assert r.returncode != 0 and "Failed to authenticate" in r.stderr, r.stderr
    log = (pool.root / "log" / "SchedLog").read_text()
    assert "raw CEDAR command 1112" in log and "no method proved who sent it" in log
