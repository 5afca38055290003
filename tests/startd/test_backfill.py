"""Backfill (manual 3.5.8.6) on a real startd: one backfill client (a real process
tree) shared by the slots, evicted when EVICT_BACKFILL turns true, and giving way to a
job the negotiator matches."""

from __future__ import annotations

import os
from pathlib import Path

from condorx.testing.pool import QUICK_POOL, wait_for
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.pool_views import history, slot_states, transitions


def client_pids(pids: Path) -> tuple[int, int]:
    """The backfill client's pid and its child's, once it has written both (the slot is
    Backfill/Busy as soon as the client is started, a moment before)."""

    def both() -> list[int]:
        words = pids.read_text().split() if pids.exists() else []
        return [int(w) for w in words] if len(words) >= 2 else []

    client, child = wait_for(both, "the backfill client to write its pid and its child's")[:2]
    return client, child


def start(pool: Pool, cpus: int, on_term: str = "") -> Path:
    pids = pool.root / "boinc.pids"
    inputs = pool.root / "inputs"
    inputs.write_text("KeyboardIdle = 3600\n")
    client = pool.root / "boinc.sh"
    # A client with a child of its own: killing the client must kill its descendants.
    client.write_text(
        f"#!/bin/sh\n{on_term}echo $$ >> {pids}\nsleep 1000 &\necho $! >> {pids}\nwait\n"
    )
    client.chmod(0o755)
    with open(pool.config_file, "a") as f:
        f.write(
            QUICK_POOL
            + f"""
POLLING_INTERVAL = 1
NUM_CPUS = {cpus}
RunBenchmarks = false
KILLING_TIMEOUT = 3
STARTD_INPUTS_OVERRIDE = {inputs}
ENABLE_BACKFILL = True
BACKFILL_SYSTEM = BOINC
BOINC_Executable = {client}
START_BACKFILL = KeyboardIdle > 60
EVICT_BACKFILL = KeyboardIdle < 60
"""
        )
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    return pids


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # it may be reaped between the signal and the read
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_one_client_for_all_slots_evicted_with_its_children(pool):
    pids = start(pool, 2)
    wait_for(lambda: slot_states(pool) == ["Backfill/Busy"] * 2, "both slots to backfill")
    client, child = client_pids(pids)
    assert alive(client) and alive(child)
    assert len(pids.read_text().split()) == 2  # one client (and its child), not two
    assert transitions(pool).count(7) == 2 and transitions(pool).count(26) == 2
    (pool.root / "inputs").write_text("KeyboardIdle = 5\n")  # EVICT_BACKFILL
    wait_for(lambda: not alive(client) and not alive(child), "the client and its child to die")
    # Owner (30), then Unclaimed as IsOwner says (1); START_BACKFILL is false meanwhile.
    wait_for(lambda: slot_states(pool) == ["Unclaimed/Idle"] * 2, "the slots to leave backfill")
    seen = transitions(pool)
    assert seen[-8:].count(28) == 2 and seen[-8:].count(29) == 2 and seen[-8:].count(30) == 2


def test_a_job_takes_a_backfill_slot_and_the_other_keeps_backfilling(pool):
    pids = start(pool, 2)
    wait_for(lambda: slot_states(pool) == ["Backfill/Busy"] * 2, "both slots to backfill")
    client = client_pids(pids)[0]
    c = pool.submit("executable = /bin/sleep\narguments = 3\nqueue\n")
    wait_for(lambda: "Claimed/Busy" in slot_states(pool), "the job to run on a backfill slot")
    assert "Backfill/Busy" in slot_states(pool) and alive(client)  # still in use by the other
    wait_for(lambda: history(pool, "ClusterId") == [[str(c)]], "the job to finish")
    seen = transitions(pool)
    # Claimed once its backfill was off it (31): the negotiator told the startd nothing,
    # the schedd's claim came with the claim id the slot offers.
    assert 31 in seen and 32 not in seen
    # Stopped while backfilling: the client goes and no new one starts in its place (the
    # startd once started it again and waited on it until it was killed).
    pool.daemon("startd").terminate()
    log = pool.root / "log" / "StartLog"
    wait_for(lambda: "shut down (graceful)" in log.read_text(), "the startd to shut down")
    assert "the backfill client is starting" not in log.read_text().split("shutting down")[-1]


def test_the_last_backfill_slot_kills_the_client_for_a_job(pool):
    pids = start(pool, 1)
    wait_for(lambda: slot_states(pool) == ["Backfill/Busy"], "the slot to backfill")
    client, child = client_pids(pids)
    c = pool.submit("executable = /bin/true\nqueue\n")
    wait_for(lambda: history(pool, "ClusterId") == [[str(c)]], "the job to run")
    assert not alive(client) and not alive(child)
    seen = transitions(pool)
    assert seen[seen.index(28) :][:2] == [28, 29] and (31 in seen or 32 in seen)


def test_a_claim_that_comes_while_the_client_is_killed_waits_for_it(pool):
    # The client takes 2 s to go after the soft kill: the slot stays Backfill/Killing
    # until it is gone (29), and the schedd's claim, come meanwhile, takes it (31).
    pids = start(pool, 1, on_term="trap 'sleep 2; exit 0' TERM\n")
    wait_for(lambda: slot_states(pool) == ["Backfill/Busy"], "the slot to backfill")
    c = pool.submit("executable = /bin/true\nqueue\n")
    wait_for(lambda: history(pool, "ClusterId") == [[str(c)]], "the job to run")
    client = client_pids(pids)[0]
    assert not alive(client)
    seen = transitions(pool)
    assert seen[seen.index(28) :][:4] == [28, 29, 31, 11]
    log = (pool.root / "log" / "StartLog").read_text()
    assert log.index("exited with status") < log.index("(transition 29:")


def test_a_startd_killed_with_9_takes_its_backfill_client_with_it(pool):
    pids = start(pool, 1)
    wait_for(lambda: slot_states(pool) == ["Backfill/Busy"], "the slot to backfill")
    client, child = client_pids(pids)
    pool.daemon("startd").kill9()  # no chance to clean up
    wait_for(lambda: not alive(client) and not alive(child), "the client and its child to die")
