"""The shadows' reuse of a claim, in-process over a real ledger: a claim takes its user's
idle jobs in order, only those its slot will take and that are due, and leaves the rest
queued for another claim; another user's jobs are not its to take."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import trio
import trio.testing
from jobs import cluster

from condorx.classad import ClassAd
from condorx.client.startd import StartdClient
from condorx.daemons.schedd import entry
from condorx.daemons.schedd.identity import Identity
from condorx.daemons.schedd.ledger import Files, Ledger
from condorx.daemons.schedd.queue import JobQueue
from condorx.daemons.schedd.shadow import ClaimInfo, Shadows
from condorx.daemons.schedd.store import Store
from condorx.daemons.schedd.submission import Submission
from condorx.language.history import Rotation
from condorx.transport.connection import Address, Credentials
from condorx.transport.packed_ad import PackedAd

SLOT = ClassAd({"Memory": 2048, "Cpus": 1, "Arch": "X86_64", "Requirements": True})


def test_a_claim_takes_its_users_jobs_that_its_slot_will_take(tmp_path: Path):
    files = Files(tmp_path / "history", Rotation(1 << 20, 1), tmp_path / "spool")
    ledger = Ledger(JobQueue(Store(tmp_path / "q.db")), files)
    me = Identity("schedd@example.org", "example.org", interval=300)
    now = int(time.time())

    def submit(owner: str, procs: list[dict]) -> int:
        who = entry.Submitter(owner, "example.org", me.name)
        sub = Submission.decode(cluster(tmp_path), procs)
        return trio.from_thread.run(ledger.change, lambda txn: entry.submit(txn, who, sub, now))

    async def main() -> list:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            shadows = Shadows(ledger, StartdClient(Credentials(), nursery), me, nursery)
            big = {"RequestMemory": 100_000}
            # A cron job whose next run is 11 to 12 hours off: not due on a reused claim.
            hour = (time.localtime(now).tm_hour + 12) % 24
            later = {"CronMinute": "0", "CronHour": str(hour)}
            a = await trio.to_thread.run_sync(submit, "alice", [{}, big, later, {}])
            b = await trio.to_thread.run_sync(submit, "bob", [{}])
            shadows.note_idle([k for k, _ in ledger.snapshot()])
            alice = ClaimInfo(
                "c1", Address.parse("<127.0.0.1:9>"), "slot1@x", "alice", slot_ad=PackedAd.of(SLOT)
            )
            taken = []
            while (key := shadows.next_job(alice)) is not None:
                taken.append(key)
                shadows.running[key] = alice  # as its run would be
            # A bigger slot's claim later takes what this one left, in order.
            roomy = ClassAd({**{k: SLOT[k] for k in ("Cpus", "Arch")}, "Memory": 200_000})
            roomy["Requirements"] = True
            other = ClaimInfo(
                "c2", Address.parse("<127.0.0.1:9>"), "slot2@x", "alice", slot_ad=PackedAd.of(roomy)
            )
            after = shadows.next_job(other)
            nursery.cancel_scope.cancel()
        return [taken, after, (a, b)]

    taken, after, (a, b) = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert taken == [(a, 0), (a, 3)]  # not the big one, not the cron job, not bob's
    assert after == (a, 1)


def test_a_claim_leaves_a_job_matched_to_another_claim_still_being_taken_up(tmp_path: Path):
    # The negotiator matched job 0 to a slot whose claim is on its way (the claim brings
    # the job); a claim whose job just ended must not take it as its next: it would run
    # on both slots. Once that claim has failed, the job is another claim's to take.
    files = Files(tmp_path / "history", Rotation(1 << 20, 1), tmp_path / "spool")
    ledger = Ledger(JobQueue(Store(tmp_path / "q.db")), files)
    me = Identity("schedd@example.org", "example.org", interval=300)
    who = entry.Submitter("alice", "example.org", me.name)
    # A startd that refuses connections: bound, never listening.
    nowhere = socket.socket()
    nowhere.bind(("127.0.0.1", 0))
    startd = Address.parse(f"<127.0.0.1:{nowhere.getsockname()[1]}>")

    def submit() -> int:
        sub = Submission.decode(cluster(tmp_path), [{}, {}])
        now = int(time.time())
        return trio.from_thread.run(ledger.change, lambda txn: entry.submit(txn, who, sub, now))

    async def main() -> list:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            shadows = Shadows(ledger, StartdClient(Credentials(), nursery), me, nursery)
            c = await trio.to_thread.run_sync(submit)
            shadows.note_idle([(c, 0), (c, 1)])
            shadows.matched(
                (c, 0), ClaimInfo("c2", startd, "slot2@x", "alice", slot_ad=PackedAd.of(SLOT))
            )
            busy = ClaimInfo(
                "c1", Address.parse("<127.0.0.1:9>"), "slot1@x", "alice", slot_ad=PackedAd.of(SLOT)
            )
            first = shadows.next_job(busy)  # before the claim's task has even started
            shadows.running[(c, 1)] = busy
            second = shadows.next_job(busy)  # only the matched job is left
            while shadows.pending:  # the claim fails: its startd refuses the connection
                await trio.sleep(1)
            third = shadows.next_job(busy)
            nursery.cancel_scope.cancel()
        return [first, second, third, c]

    try:
        clock = trio.testing.MockClock(autojump_threshold=0)
        first, second, third, c = trio.run(main, clock=clock)
    finally:
        nowhere.close()
    assert (first, second, third) == ((c, 1), None, (c, 0))


def test_matches_wait_in_order_while_as_many_claims_as_allowed_are_taken_up(tmp_path: Path):
    # A cycle's matches are not all tasks at once: beyond `in_flight`, they wait their
    # turn, and each claim taken up (here: refused) lets the next one start.
    files = Files(tmp_path / "history", Rotation(1 << 20, 1), tmp_path / "spool")
    ledger = Ledger(JobQueue(Store(tmp_path / "q.db")), files)
    me = Identity("schedd@example.org", "example.org", interval=300)
    who = entry.Submitter("alice", "example.org", me.name)
    nowhere = socket.socket()  # a startd that refuses connections: bound, never listening
    nowhere.bind(("127.0.0.1", 0))
    startd = Address.parse(f"<127.0.0.1:{nowhere.getsockname()[1]}>")

    def submit() -> int:
        sub = Submission.decode(cluster(tmp_path), [{}] * 5)
        now = int(time.time())
        return trio.from_thread.run(ledger.change, lambda txn: entry.submit(txn, who, sub, now))

    async def main() -> list:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            client = StartdClient(Credentials(), nursery)
            shadows = Shadows(ledger, client, me, nursery, in_flight=2)
            c = await trio.to_thread.run_sync(submit)
            for p in range(5):
                claim = ClaimInfo(f"c{p}", startd, f"slot{p}@x", "alice", slot_ad=PackedAd.of(SLOT))
                shadows.matched((c, p), claim)
            at_once = (shadows.claiming, [job for _, job in shadows.to_claim])
            while shadows.pending:
                await trio.sleep(1)
            after = (shadows.claiming, len(shadows.to_claim), sorted(shadows.idle["alice"]))
            nursery.cancel_scope.cancel()
        return [at_once, after, c]

    try:
        at_once, after, c = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    finally:
        nowhere.close()
    assert at_once == (2, [(c, 2), (c, 3), (c, 4)])
    assert after == (0, 0, [(c, p) for p in range(5)])  # each waits for another match
