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


def start_master(pool) -> None:
    """The master of MASTER, once it has started the collector and the schedd."""
    with open(pool.config_file, "a") as f:
        f.write(MASTER)
    pool.reload()
    pool.start("master")

    def started() -> bool:
        now = daemons(pool)  # one reading: the master starts them meanwhile
        return len(now) == 2 and all(d["pid"] for d in now.values())

    wait_for(started, "the collector and schedd to start")


def test_master_keeps_its_daemons_running_and_obeys_commands(pool):
    start_master(pool)
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


def _who_daemons(pool) -> dict[str, list[str]]:
    out = pool.cli("condorx.cli.who", "-daemons").stdout.splitlines()
    assert out[1] == f'LOG directory "{pool.cfg.get("LOG")}"'
    assert out[3].split() == ["Daemon", "Alive", "PID", "PPID", "Exit", "Addr", "Executable"]
    return {line.split()[0]: line.split() for line in out[5:]}


def test_condor_who_daemons_reads_the_log_directory(pool):
    """condor_who -daemons: each daemon of the LOG directory with its pid (its log's
    start-up banner, the master's log), parent, exit status and address."""
    start_master(pool)
    master_pid = pool.daemon("master").proc.pid
    pids = {name: d["pid"] for name, d in daemons(pool).items()}

    def complete() -> dict[str, list[str]] | None:
        rows = _who_daemons(pool)  # one reading: the daemons write their files meanwhile
        ready = len(rows) == 3 and all(row[5].startswith("<") for row in rows.values())
        return rows if ready else None

    rows = wait_for(complete, "the daemons' logs and addresses")
    assert rows["Master"][1:3] == ["yes", str(master_pid)]
    for name in ("Collector", "Schedd"):
        alive_, pid, ppid, exit_, addr = rows[name][1:6]
        assert (alive_, pid, ppid, exit_) == ("yes", str(pids[name.lower()]), str(master_pid), "no")
        assert addr.startswith("<127.0.0.1:")
        assert "condorx.daemons" in " ".join(rows[name][6:])

    pool.cli("condorx.cli.pool:off", "-daemon", "schedd")
    wait_for(lambda: _who_daemons(pool)["Schedd"][4] != "no", "the schedd's exit in the log")
    assert _who_daemons(pool)["Schedd"][1:5] == ["no", "no", "no", "0"]  # a clean stop
    pool.daemon("master").stop()
