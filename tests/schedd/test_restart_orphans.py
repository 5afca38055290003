"""What a restarted schedd makes of the runs it lost, in-process over a real ledger: a
running or suspended job runs again, and a job removed or held while its run was being
stopped is settled at once (a removed one leaves the queue, unless LeaveJobInQueue keeps
it), not left waiting in X for a lease that no startd keeps any more."""

from __future__ import annotations

from pathlib import Path

import trio
from jobs import cluster

from condorx.daemons.schedd import entry
from condorx.daemons.schedd.ledger import Files, Ledger
from condorx.daemons.schedd.queue import JobQueue, Transaction
from condorx.daemons.schedd.store import Store
from condorx.daemons.schedd.submission import Submission
from condorx.daemons.schedd.upkeep import Upkeep
from condorx.language.attrs import JobStatus
from condorx.language.config import Config
from condorx.language.history import Rotation

NOW = 1_800_000_000
# Each proc's state when the schedd stopped: (JobStatus, RemoteHost or None, extra).
STOPPED = [
    (JobStatus.RUNNING, "slot1@a", {}),
    (JobStatus.SUSPENDED, "slot2@a", {}),
    (JobStatus.REMOVED, "slot3@a", {}),
    (JobStatus.REMOVED, "slot4@a", {"LeaveJobInQueue": True}),
    (JobStatus.HELD, "slot5@a", {}),
    (JobStatus.HELD, None, {}),
    (JobStatus.IDLE, None, {}),
]


def _ledger(tmp_path: Path) -> Ledger:
    files = Files(tmp_path / "history", Rotation(1 << 20, 1), tmp_path / "spool")
    return Ledger(JobQueue(Store(tmp_path / "q.db")), files)


def _set_up(tmp_path: Path) -> int:
    """A queue as a schedd killed mid-run leaves it, written to disk."""
    ledger = _ledger(tmp_path)
    who = entry.Submitter("alice", "example.org", "schedd@example.org")
    sub = Submission.decode(cluster(tmp_path), [extra for _, _, extra in STOPPED])

    def state(txn: Transaction) -> int:
        c = entry.submit(txn, who, sub, NOW)
        for proc, (status, host, _) in enumerate(STOPPED):
            txn.set_attr((c, proc), "JobStatus", int(status))
            if host is not None:
                txn.set_attr((c, proc), "RemoteHost", host)
        return c

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            c = await ledger.change(state)
            nursery.cancel_scope.cancel()
        return c

    c = trio.run(main)
    ledger.queue.store.close()
    return c


def test_a_restart_settles_every_run_it_lost(tmp_path: Path):
    c = _set_up(tmp_path)
    ledger = _ledger(tmp_path)  # the restarted schedd's, read from disk

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(ledger.run)
            await Upkeep(Config.from_text(""), ledger, lambda: NOW + 5).requeue_orphans()
            nursery.cancel_scope.cancel()

    trio.run(main)
    status = {p: JobStatus.of(ad) for (_, p), ad in ledger.snapshot()}
    assert status == {
        0: JobStatus.IDLE,  # runs again
        1: JobStatus.IDLE,
        3: JobStatus.REMOVED,  # LeaveJobInQueue keeps it, its run settled
        4: JobStatus.HELD,
        5: JobStatus.HELD,
        6: JobStatus.IDLE,
    }  # proc 2, removed, has left the queue
    assert all(ledger.get((c, p)).get("RemoteHost") is None for p in status)
    assert ledger.get((c, 3))["LastRemoteHost"] == "slot4@a"
    assert "ProcId = 2" in (tmp_path / "history").read_text()
