"""condor_drain on a real startd: its slots take no new jobs, the running ones retire, are
vacated or killed as asked, and once drained the startd stays so, takes jobs again, or exits
(and its master leaves it stopped); HTCondor's messages and exit codes throughout."""

from __future__ import annotations

import socket

import trio

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
    assert startd_pid() is None  # and the master does not start it again
    pool.daemon("master").stop()
