"""The schedd's ledger in-process, on trio's MockClock: changes arriving together share
one durable commit, a change that raises is left out of its batch and the rest go in, a
caller learns its change's fate even when cancelled, and every commit's news comes down
the one stream in order."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from jobs import cluster

from condorx.daemons.schedd import entry
from condorx.daemons.schedd import transitions as t
from condorx.daemons.schedd.committed import Committed
from condorx.daemons.schedd.ledger import Files, Ledger, LedgerClosed
from condorx.daemons.schedd.queue import JobQueue, Transaction
from condorx.daemons.schedd.store import Store
from condorx.daemons.schedd.submission import Submission
from condorx.language.attrs import JobStatus
from condorx.language.history import Rotation

WHO = entry.Submitter("alice", "example.org", "schedd@example.org")


class CountingStore(Store):
    """A real store that counts its durable commits (each is one fsync)."""

    commits = 0
    gate: threading.Event | None = None  # when set up, a commit waits for it

    def commit(self, *args: Any) -> None:
        if self.gate is not None:
            self.gate.wait(30)
        self.commits += 1
        super().commit(*args)


def ledger_at(tmp_path: Path) -> Ledger:
    files = Files(tmp_path / "history", Rotation(1 << 20, 1), tmp_path / "spool")
    return Ledger(JobQueue(CountingStore(tmp_path / "q.db")), files)


def run(test: Any) -> None:
    trio.run(test, clock=trio.testing.MockClock(autojump_threshold=0))


def submit(tmp_path: Path, n: int = 1):
    return lambda txn: entry.submit(
        txn, WHO, Submission.decode(cluster(tmp_path), [{} for _ in range(n)]), 100
    )


def test_changes_that_arrive_together_share_one_commit(tmp_path: Path):
    ledger = ledger_at(tmp_path)
    store = ledger.queue.store
    assert isinstance(store, CountingStore)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            c = await ledger.change(submit(tmp_path, 20))
            assert store.commits == 1
            done: list[str] = []

            async def hold(proc: int) -> None:
                key = (c, proc)
                await ledger.change(lambda txn: t.hold(txn, key, "why", 1, 0, 101))
                done.append(f"{c}.{proc}")

            async with trio.open_nursery() as holds:
                for proc in range(20):
                    holds.start_soon(hold, proc)
            assert len(done) == 20
            # All 20 asked before the ledger's task ran again: one commit for them all.
            assert store.commits == 2
            assert all(JobStatus.of(ad) == JobStatus.HELD for _, ad in ledger.snapshot())
            nursery.cancel_scope.cancel()

    run(main)
    # Durable: what was acknowledged is on disk.
    again = JobQueue(Store(tmp_path / "q.db"))
    assert len(again) == 20
    assert all(JobStatus.of(ad) == JobStatus.HELD for _, ad in again.snapshot())


def test_a_change_that_raises_is_left_out_and_the_rest_of_its_batch_goes_in(tmp_path: Path):
    ledger = ledger_at(tmp_path)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            c = await ledger.change(submit(tmp_path, 3))
            errors: list[BaseException] = []

            def mark(proc: int, fail: bool):
                def change(txn: Transaction) -> int:
                    txn.set_attr((c, proc), "Marked", True)
                    if fail:  # after staging a change of its own
                        raise t.QueueError("busy", "refused half-way")
                    return proc

                return change

            async def call(proc: int, fail: bool) -> None:
                try:
                    assert await ledger.change(mark(proc, fail)) == proc
                except t.QueueError as e:
                    errors.append(e)

            async with trio.open_nursery() as calls:
                # A first change holds the commit, so the next three batch together.
                calls.start_soon(call, 0, False)
                await trio.testing.wait_all_tasks_blocked()
                for proc, fail in ((1, True), (2, False)):
                    calls.start_soon(call, proc, fail)
            assert [str(e) for e in errors] == ["refused half-way"]
            marked = {k[1]: ad.get("Marked") for k, ad in ledger.snapshot()}
            assert marked == {0: True, 1: None, 2: True}
            nursery.cancel_scope.cancel()

    run(main)


def test_a_cancelled_caller_still_has_its_change_committed(tmp_path: Path):
    ledger = ledger_at(tmp_path)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            with trio.CancelScope() as scope:
                scope.cancel()  # cancelled before it even asks
                c = await ledger.change(submit(tmp_path, 2))
            # It learns what became of its change: in, with the cluster it made.
            assert ledger.procs(c) == [0, 1]
            nursery.cancel_scope.cancel()

    run(main)


def test_news_comes_in_commit_order_and_a_stopped_ledger_refuses(tmp_path: Path):
    ledger = ledger_at(tmp_path)
    news: list[Committed] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            c = await ledger.change(submit(tmp_path, 2))
            await ledger.change(lambda txn: t.hold(txn, (c, 1), "why", 1, 0, 101))
            await ledger.change(lambda txn: t.release(txn, (c, 1), "ok", 102))
            await ledger.change(lambda txn: txn.set_attr((c, 0), "Quiet", 1))  # no news
            while True:
                try:
                    news.append(ledger.news.receive_nowait())
                except trio.WouldBlock:
                    break
            nursery.cancel_scope.cancel()
        with pytest.raises(LedgerClosed):
            await ledger.change(submit(tmp_path))

    run(main)
    c = news[0].idle[0][0]
    assert news == [
        Committed(idle=((c, 0), (c, 1))),
        Committed(stopped=((c, 1),)),
        Committed(idle=((c, 1),)),
    ]


def test_a_submission_staged_again_is_staged_as_new(tmp_path: Path):
    """A batch staged a second time (a later change in it raised) stages its submit
    again from the same decoded submission, which the first staging left as it was."""
    ledger = ledger_at(tmp_path)
    store = ledger.queue.store
    assert isinstance(store, CountingStore)
    store.gate = threading.Event()  # the first commit waits: the next two batch up
    ad = cluster(tmp_path, DeferralTime=10_000, DeferralPrepTime=60)
    sub = Submission.decode(ad, [{}, {"Args": "2"}])
    sent = sub.cluster.printOld()
    staged: list[int] = []

    def add(txn: Transaction) -> int:
        staged.append(1)
        return entry.submit(txn, WHO, sub, 100)

    def refuse(txn: Transaction) -> None:
        raise t.QueueError("busy", "not now")

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            got: list[int] = []

            async def call(fn: Any) -> None:
                try:
                    got.append(await ledger.change(fn))
                except t.QueueError:
                    pass

            async with trio.open_nursery() as calls:
                # The first writes (a cluster id), so its commit waits at the gate.
                for fn in (lambda txn: txn.new_cluster() and None, add, refuse):
                    calls.start_soon(call, fn)
                    await trio.testing.wait_all_tasks_blocked()
                store.gate.set()
            nursery.cancel_scope.cancel()
        return [g for g in got if g is not None][0]

    c = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert len(staged) == 2  # staged, then staged again without `refuse`
    assert sub.cluster.printOld() == sent  # the decoded submission is not changed
    assert ledger.procs(c) == [0, 1]
    job = ledger.get((c, 1))
    assert job is not None and job["ProcId"] == 1 and job["Args"] == "2"
    requirements = str(job.lookup("Requirements"))
    assert requirements.count("DeferralPrepTime") == 1, requirements


def test_a_staged_change_goes_in_with_the_next_change_in_order(tmp_path: Path):
    # A job's end is staged without waiting: the claim's next job, asked for after it,
    # commits in the same batch, behind it; a staged change refused is reported.
    ledger = ledger_at(tmp_path)
    store = ledger.queue.store
    assert isinstance(store, CountingStore)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            c = await ledger.change(submit(tmp_path, 2))
            before = store.commits
            order: list[str] = []
            refused: list[BaseException] = []

            def mark(name: str, fail: bool = False):
                def change(txn: Transaction) -> None:
                    if fail:
                        raise t.QueueError("bad-status", f"{name} refused")
                    if name not in order:  # a batch is staged again without a refused change
                        order.append(name)
                    txn.set_attr((c, 0), name, True)

                return change

            ledger.stage(mark("Ended"), refused.append)
            ledger.stage(mark("Gone", fail=True), refused.append)
            await ledger.change(mark("Started"))
            assert order == ["Ended", "Started"]
            assert store.commits == before + 1
            assert [str(e) for e in refused] == ["Gone refused"]
            ad = ledger.get((c, 0))
            assert ad is not None and ad.get("Ended") is True and ad.get("Started") is True
            nursery.cancel_scope.cancel()
        # Once the ledger has stopped, a staged change is refused at once.
        ledger.stage(mark("Late"), refused.append)
        assert isinstance(refused[-1], LedgerClosed)

    run(main)
