"""What each committed transaction tells the schedd's follow-ups (`Committed`), read from
the transaction itself, without a daemon: which jobs became Idle, which were held or
removed, and whether the gridmanager has news."""

from __future__ import annotations

from pathlib import Path

from jobs import cluster

from condorx.daemons.schedd import entry
from condorx.daemons.schedd import transitions as t
from condorx.daemons.schedd.committed import Committed
from condorx.daemons.schedd.queue import JobQueue, Transaction
from condorx.daemons.schedd.store import Store
from condorx.daemons.schedd.submission import Submission

WHO = entry.Submitter("alice", "example.org", "schedd@example.org")


def commit(q: JobQueue, change) -> Committed:
    """Run `change` in a transaction, commit it; what it tells the follow-ups."""
    txn: Transaction = q.begin()
    change(txn)
    txn.prepare()
    news = Committed.of(txn, q)
    txn.write()
    txn.apply()
    return news


def test_submitted_released_and_requeued_jobs_become_idle(tmp_path: Path):
    q = JobQueue(Store(tmp_path / "q.db"))
    box: dict[str, int] = {}
    news = commit(
        q,
        lambda txn: box.update(
            c=entry.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}, {}]), 1)
        ),
    )
    c = box["c"]
    assert news == Committed(idle=((c, 0), (c, 1)))
    assert commit(q, lambda txn: t.hold(txn, (c, 0), "why", 1, 0, 2)) == Committed(
        stopped=((c, 0),)
    )
    assert commit(q, lambda txn: t.release(txn, (c, 0), "ok", 3)) == Committed(idle=((c, 0),))
    assert not commit(q, lambda txn: t.start_running(txn, (c, 1), "slot1", "<h:1>", 4))
    news = commit(q, lambda txn: t.lose_running(txn, (c, 1), "startd gone", 5))
    assert news == Committed(idle=((c, 1),))  # back to Idle, to run elsewhere
    assert commit(q, lambda txn: t.remove(txn, (c, 1), "rm", 6)) == Committed(stopped=((c, 1),))


def test_only_a_grid_job_that_became_idle_or_stopped_is_news_to_the_gridmanager(tmp_path):
    q = JobQueue(Store(tmp_path / "q.db"))
    box: dict[str, int] = {}
    ad = cluster(tmp_path, JobUniverse=9, GridResource="condor s c")
    news = commit(
        q, lambda txn: box.update(c=entry.submit(txn, WHO, Submission.decode(ad, [{}]), 1))
    )
    key = (box["c"], 0)
    assert news.grid and news.idle == (key,)
    # The gridmanager's own record of what the remote pool says is no news to itself.
    news = commit(q, lambda txn: txn.set_attr(key, "GridJobId", "condor s c 7.0"))
    assert not news
    assert commit(q, lambda txn: t.hold(txn, key, "why", 1, 0, 2)).grid


def test_a_burst_of_commits_is_followed_up_once():
    a, b = Committed(idle=((1, 0),)), Committed(idle=((1, 0), (2, 0)), stopped=((3, 0),))
    assert Committed.merged([a, b, Committed(grid=True)]) == Committed(
        idle=((1, 0), (2, 0)), stopped=((3, 0),), grid=True
    )
