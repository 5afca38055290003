"""The master starts DAEMON_LIST, restarts a daemon that dies, and obeys condor_off,
condor_on and condor_restart; stopping it stops its daemons."""

from __future__ import annotations

import os
import signal

import trio

from condorx.client import master
from condorx.testing.pool import alive, wait_for

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
