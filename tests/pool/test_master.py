"""The master starts DAEMON_LIST, restarts a daemon that dies, and obeys condor_off,
condor_on and condor_restart; stopping it stops its daemons."""

from __future__ import annotations

import os
import signal

import trio

from condorx.client import master
from condorx.client.collector import CollectorClient
from condorx.testing.pool import alive, wait_for
from condorx.transport.connection import daemon_credentials

MASTER = """\
DAEMON_LIST = MASTER, COLLECTOR, SCHEDD
MASTER_BACKOFF_CONSTANT = 1
"""


def daemons(pool) -> dict:
    return trio.run(master.status, pool.cfg)


def test_master_keeps_its_daemons_running_and_obeys_commands(pool):
    with open(pool.config_file, "a") as f:
        f.write(MASTER)
    pool.reload()
    pool.start("master")
    wait_for(
        lambda: all(d["pid"] for d in daemons(pool).values()) and len(daemons(pool)) == 2,
        "the collector and schedd to start",
    )
    first = daemons(pool)["schedd"]["pid"]
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: daemons(pool)["schedd"]["pid"] not in (None, first), "a new schedd")
    assert daemons(pool)["schedd"]["restarts"] == 1

    out = pool.cli("condorx.cli.pool:off", "-daemon", "schedd").stdout
    assert "schedd" in out and "schedd" not in daemons(pool)
    pool.cli("condorx.cli.pool:on", "-daemon", "schedd")
    wait_for(lambda: (daemons(pool).get("schedd") or {}).get("pid"), "the schedd to be back")

    with open(pool.config_file, "a") as f:
        f.write("DAEMON_LIST = MASTER, COLLECTOR\n")
    out = pool.cli("condorx.cli.pool:reconfig").stdout
    assert "collector" in out
    wait_for(
        lambda: list(daemons(pool)) == ["collector"] and daemons(pool)["collector"]["pid"],
        "the schedd to leave DAEMON_LIST and the collector to restart",
    )

    pids = [d["pid"] for d in daemons(pool).values()]
    pool.daemon("master").stop()
    for pid in pids:
        wait_for(lambda pid=pid: not alive(pid), f"daemon {pid} to stop with the master")


SECOND_NEGOTIATOR = """\
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, NEG2, SHARED_PORT, FROBD
MASTER_BACKOFF_CONSTANT = 1
NEG2 = $(NEGOTIATOR)
NEG2_ARGS = -local-name NEG2
NEG2.NEGOTIATOR_LOG = $(LOG)/Negotiator2Log
"""


def test_the_master_runs_a_second_negotiator_as_htcondor_configures_one(pool):
    with open(pool.config_file, "a") as f:
        f.write(SECOND_NEGOTIATOR)
    pool.reload()
    pool.start("master")
    wait_for(
        lambda: (
            sorted(daemons(pool)) == ["collector", "neg2", "negotiator"]
            and all(d["pid"] for d in daemons(pool).values())
        ),
        "the collector and both negotiators to start",
    )
    collector = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))

    def negotiators() -> list[str]:
        rows = trio.run(collector.query_rows, "negotiator", ["Name"])
        return sorted(str(r[0]).split("@")[0] for r in rows)

    wait_for(lambda: negotiators() == ["neg2", "negotiator"], "both negotiators' ads")
    assert (pool.root / "log" / "Negotiator2Log").exists()
    # What it cannot run is logged, as HTCondor's master logs it, and the rest runs.
    log = (pool.root / "log" / "MasterLog").read_text()
    assert (
        "FROBD is in the DAEMON_LIST parameter, but there is no executable path for it defined"
        " in the config files!" in log
    )
    assert "SHARED_PORT is in the DAEMON_LIST parameter, but " in log
    assert "condor_shared_port is not a daemon condorx has: it is not started." in log
    pids = [d["pid"] for d in daemons(pool).values()]
    pool.daemon("master").stop()
    for pid in pids:
        wait_for(lambda pid=pid: not alive(pid), f"daemon {pid} to stop with the master")
