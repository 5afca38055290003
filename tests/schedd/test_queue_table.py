"""The job table and its store, without a daemon: transactions, chaining, reloading."""

from __future__ import annotations

from pathlib import Path

import pytest
from jobs import cluster

from condorx.daemons.schedd import transitions as t
from condorx.daemons.schedd.queue import JobQueue
from condorx.daemons.schedd.store import Store
from condorx.daemons.schedd.submission import Submission

WHO = t.Submitter("alice", "example.org", "schedd@example.org")


def _commit(txn):
    txn.prepare()
    txn.write()
    txn.apply()


def _queue(path: Path) -> JobQueue:
    return JobQueue(Store(path / "q.db"))


def test_procs_are_chained_to_their_cluster_ad(tmp_path):
    q = _queue(tmp_path)
    txn = q.begin()
    c = t.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}, {"Args": "7"}]), now=1000)
    assert q.get((c, 0)) is None  # nothing shows before the commit
    _commit(txn)
    a0, a1 = q.get((c, 0)), q.get((c, 1))
    assert (a0["Args"], a1["Args"]) == ("60", "7")
    assert a0["Owner"] == "alice" and a0["User"] == "alice@example.org" and a0["QDate"] == 1000
    assert sorted(a0.own_keys()) == ["GlobalJobId", "ProcId"]


def test_a_change_to_one_proc_leaves_the_others_alone_and_survives_reload(tmp_path):
    q = _queue(tmp_path)
    txn = q.begin()
    c = t.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}, {}]), now=1000)
    _commit(txn)
    txn = q.begin()
    assert t.hold(txn, (c, 1), "why not", 1, 0, now=2000)
    _commit(txn)
    assert q.get((c, 0))["JobStatus"] == 1
    assert q.get((c, 1))["JobStatus"] == 5
    q.store.close()
    again = _queue(tmp_path)
    assert [again.get((c, p)).printOld() for p in (0, 1)] == [
        q.get((c, p)).printOld() for p in (0, 1)
    ]
    assert again.next_cluster == c + 1


def test_the_last_proc_leaving_takes_the_cluster_ad(tmp_path):
    q = _queue(tmp_path)
    txn = q.begin()
    c = t.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}, {}]), now=1000)
    _commit(txn)
    txn = q.begin()
    t.remove(txn, (c, 0), "bye", now=1001)
    t.remove(txn, (c, 1), "bye", now=1001)
    assert [e.kind for e in txn.events] == ["abort", "leave", "abort", "leave"]
    _commit(txn)
    assert len(q) == 0 and c not in q.clusters
    q.store.close()
    assert list(_queue(tmp_path).store.rows()) == []


def test_a_failed_write_changes_nothing_in_memory(tmp_path):
    q = _queue(tmp_path)
    txn = q.begin()
    c = t.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}]), now=1000)
    _commit(txn)
    txn = q.begin()
    t.hold(txn, (c, 0), "x", 1, 0, now=1001)
    txn.prepare()
    q.store.close()  # the database is gone: the write fails
    with pytest.raises(Exception, match="closed"):
        txn.write()
    assert q.get((c, 0))["JobStatus"] == 1


def test_edit_refuses_schedd_owned_attributes(tmp_path):
    q = _queue(tmp_path)
    txn = q.begin()
    c = t.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}]), now=1000)
    _commit(txn)
    with pytest.raises(t.QueueError, match="JobStatus"):
        t.edit(q.begin(), (c, 0), "JobStatus", "2")
