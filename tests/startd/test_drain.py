"""condor_drain on a real startd: its slots take no new jobs, the running ones retire, are
vacated or killed as asked, and once drained the startd stays so, takes jobs again, or exits
(and its master leaves it stopped); HTCondor's messages and exit codes throughout."""

from __future__ import annotations

import os
import signal
import socket

import trio

from condorx.classad import ExprTree
from condorx.client import master
from condorx.testing.pool import QUICK_POOL, alive, wait_for, wait_for_pid
from condorx.transport import wire

HOST = socket.gethostname()


def slots(pool) -> dict[str, tuple[str, str]]:
    reply = pool.call_daemon("startd", {"cmd": "query_slots"})
    return {
        str(ad["Name"]): (str(ad["State"]), str(ad["Activity"]))
        for ad in wire.ads_from_packed(reply["ads"])
    }


def start_pool(pool, extra: str = "") -> None:
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL + extra)
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")


def run_sleeper(pool, name: str = "pid") -> int:
    pidfile = pool.root / name
    pool.submit(
        f"executable = /bin/sh\narguments = \"-c 'echo $$ > {pidfile}; exec sleep 600'\"\nqueue\n"
    )
    return wait_for_pid(pidfile)


def drain(pool, *args: str):
    return pool.cli("condorx.cli.drain", *args, check=False)


def test_a_graceful_drain_lets_the_job_retire_and_a_cancel_undoes_it(pool):
    start_pool(pool, "MAXJOBRETIREMENTTIME = 600\n")
    pid = run_sleeper(pool)
    r = drain(pool, "-graceful", "-verbose", HOST)
    assert r.returncode == 0, r.stderr
    address = pool.daemon("startd").address()
    assert r.stdout.splitlines()[0] == (
        f"Sent request to drain the startd {address} with {HOST}. This only affects the single"
        " startd; any other startds running on the same host will not be drained."
    )
    assert r.stdout.splitlines()[1].startswith("\tRequest id: ")
    states = wait_for(
        lambda: (
            sorted(s := slots(pool).values()) == [("Claimed", "Retiring"), ("Drained", "Idle")]
            and s
        ),
        "the busy slot to retire and the free one to drain",
    )
    assert states and alive(pid)  # retiring: the job goes on running
    r = drain(pool, HOST)
    assert (r.returncode, r.stderr) == (
        1,
        f"Attempt to send DRAIN_JOBS to startd {address} failed\n"
        f"Received failure from {HOST} in response to DRAIN_JOBS request:"
        " error code 10001: Draining already in progress.\n",
    )
    r = drain(pool, "-cancel", "-request-id", "nosuchid", HOST)
    assert r.returncode == 1 and "error code 10002: No matching draining request id" in r.stderr
    r = drain(pool, "-cancel", HOST)
    assert (r.returncode, r.stdout) == (0, f"Sent request to cancel draining on {HOST}\n")
    wait_for(
        lambda: sorted(slots(pool).values()) == [("Claimed", "Busy"), ("Unclaimed", "Idle")],
        "the slots to take work again",
    )
    assert alive(pid)


def test_a_fast_drain_kills_the_job_and_resumes_once_drained(pool):
    start_pool(pool)
    first = run_sleeper(pool)
    r = drain(pool, "-fast", "-resume-on-completion", "-reason", "kernel update", HOST)
    assert r.returncode == 0, r.stderr
    wait_for(lambda: not alive(first), "the job to be killed")
    # Drained, then (resume) taking jobs again: the job, back in the queue, runs anew.
    wait_for(
        lambda: _pid(pool) not in (None, first),
        "the job to run again once the startd resumed",
        timeout=60,
    )
    assert all(state != "Drained" for state, _ in slots(pool).values())


def _pid(pool) -> int | None:
    text = (pool.root / "pid").read_text()
    return int(text) if text.endswith("\n") else None


def test_drain_refusals_and_usage(pool):
    start_pool(pool)
    # Settled first (the startd's benchmarks run at its start): the refusals change nothing.
    wait_for(
        lambda: all(s == ("Unclaimed", "Idle") for s in slots(pool).values()),
        "the slots to be Unclaimed/Idle",
    )
    r = drain(pool, "-check", "false", HOST)
    assert r.returncode == 1
    assert "error code 10003: Draining check expression is false on slot1@" in r.stderr
    r = drain(pool, "-check", "Cpus", HOST)
    assert "error code 10003: Draining check expression does not evaluate to a bool" in r.stderr
    assert all(s == ("Unclaimed", "Idle") for s in slots(pool).values())
    r = drain(pool)
    assert (r.returncode, r.stderr) == (2, "ERROR: must specify one target machine\n")
    r = drain(pool, "-request-id", "x", HOST)
    assert (r.returncode, r.stderr) == (2, "ERROR: -request-id may only be used with -cancel\n")
    assert drain(pool, "-nosuchoption", HOST).returncode == 2
    token = pool.cli("condorx.cli.token:create", "-identity", "mallory").stdout.strip()
    r = pool.cli("condorx.cli.drain", HOST, env={**pool.env, "CONDORX_TOKEN": token}, check=False)
    assert r.returncode == 1 and "mallory may not drain" in r.stderr


def test_exit_on_completion_stops_the_startd_for_good(pool):
    with open(pool.config_file, "a") as f:
        f.write(
            QUICK_POOL + "DAEMON_LIST = MASTER, COLLECTOR, STARTD\nMASTER_BACKOFF_CONSTANT = 1\n"
        )
    pool.reload()
    pool.start("master")

    def startd_pid():
        return (trio.run(master.status, pool.cfg).get("startd") or {}).get("pid")

    pid = wait_for(startd_pid, "the master to start the startd")
    wait_for(lambda: pool.daemon("startd").address_file.exists(), "the startd's address")
    r = drain(pool, "-exit-on-completion", HOST)
    assert r.returncode == 0, r.stderr
    wait_for(lambda: not alive(pid), "the drained startd to exit")
    log = pool.root / "log" / "MasterLog"
    wait_for(lambda: f"The STARTD (pid {pid}) exited with status 99" in log.read_text(), "99")
    assert "startd exited and asked not to be started again" in log.read_text()
    assert startd_pid() is None  # and the master does not start it again
    pool.daemon("master").stop()


def _ads(pool) -> dict[str, dict]:
    reply = pool.call_daemon("startd", {"cmd": "query_slots"})
    return {str(ad["Name"]): ad for ad in wire.ads_from_packed(reply["ads"])}


def test_a_drains_start_lets_short_jobs_in_until_the_found_jobs_are_gone(pool):
    """condor_drain -start: while the found job retires, a Drained slot's START is the
    drain's and takes a job it accepts; once the found job is gone (HTCondor's final
    draining) START is false and the job let in is vacated at once."""
    start_pool(pool, "MAXJOBRETIREMENTTIME = 600\n")
    found = run_sleeper(pool, "found")
    r = drain(pool, "-graceful", "-start", "TARGET.Short =?= true", HOST)
    assert r.returncode == 0, r.stderr
    wait_for(
        lambda: sorted(slots(pool).values()) == [("Claimed", "Retiring"), ("Drained", "Idle")],
        "the found job to retire and the free slot to drain",
    )
    starts = {str(ad.get("State")): str(ad.lookup("START")) for ad in _ads(pool).values()}
    assert starts["Drained"] == str(ExprTree("TARGET.Short =?= true"))
    long_job = pool.submit("executable = /bin/sleep\narguments = 600\nqueue\n", "long.sub")
    short = pool.root / "short"
    pool.submit(
        f"executable = /bin/sh\narguments = \"-c 'echo $$ > {short}; exec sleep 600'\"\n"
        "+Short = true\nqueue\n",
        "short.sub",
    )
    let_in = wait_for_pid(short)
    assert sorted(slots(pool).values()) == [("Claimed", "Busy"), ("Claimed", "Retiring")]
    os.kill(found, signal.SIGKILL)  # the found job ends: the final draining
    wait_for(lambda: not alive(let_in), "the job let in to be vacated")
    wait_for(
        lambda: sorted(slots(pool).values()) == [("Drained", "Idle"), ("Drained", "Idle")],
        "every slot to be Drained",
    )
    assert all(str(ad.lookup("START")) == "false" for ad in _ads(pool).values())
    statuses = pool.cli("condorx.cli.q", "-allusers", "-af", "ClusterId", "JobStatus").stdout
    assert f"{long_job} 1" in statuses.splitlines()  # never let in


def _master_pool(pool, extra: str = "") -> int:
    """A master running a collector and a startd (restarts after a failure wait 600 s);
    the startd's pid."""
    with open(pool.config_file, "a") as f:
        f.write(
            QUICK_POOL
            + "DAEMON_LIST = MASTER, COLLECTOR, STARTD\nMASTER_BACKOFF_CONSTANT = 600\n"
            + extra
        )
    pool.reload()
    pool.start("master")
    pid = wait_for(lambda: _startd_pid(pool), "the master to start the startd")
    wait_for(lambda: pool.daemon("startd").address_file.exists(), "the startd's address")
    return pid


def _startd_pid(pool) -> int | None:
    return (trio.run(master.status, pool.cfg).get("startd") or {}).get("pid")


def test_restart_and_reconfig_on_completion_start_a_new_startd_at_once(pool):
    """Once drained, the startd exits and its master starts it again at once (no back-off:
    a failure would wait 600 s); the new one reads the configuration as it is now."""
    pid = _master_pool(pool)
    r = drain(pool, "-restart-on-completion", HOST)
    assert r.returncode == 0, r.stderr
    second = wait_for(
        lambda: _startd_pid(pool) not in (None, pid) and _startd_pid(pool), "a second startd"
    )
    wait_for(lambda: _answering(pool) == [("Unclaimed", "Idle")] * 2, "the second's slots")
    with open(pool.config_file, "a") as f:
        f.write("NUM_CPUS = 3\n")
    r = drain(pool, "-reconfig-on-completion", HOST)
    assert r.returncode == 0, r.stderr
    wait_for(lambda: _startd_pid(pool) not in (None, pid, second), "a third startd")
    wait_for(lambda: _answering(pool) == [("Unclaimed", "Idle")] * 3, "three slots, not draining")
    pool.daemon("master").stop()


def _answering(pool) -> list[tuple[str, str]]:
    """The slots' states, of a startd that answers (none while it restarts)."""
    try:
        return sorted(slots(pool).values())
    except (OSError, wire.WireError, wire.RemoteError):
        return []
