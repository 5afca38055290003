"""The job table and its store, without a daemon: transactions, chaining, reloading."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jobs import cluster

from condorx.daemons.schedd import entry
from condorx.daemons.schedd import transitions as t
from condorx.daemons.schedd.queue import JobQueue
from condorx.daemons.schedd.store import Store
from condorx.daemons.schedd.submission import Submission
from condorx.language.attrs import JobStatus

WHO = entry.Submitter("alice", "example.org", "schedd@example.org")


def _commit(txn):
    txn.prepare()
    txn.write()
    txn.apply()


def _queue(path: Path) -> JobQueue:
    return JobQueue(Store(path / "q.db"))


def test_procs_are_chained_to_their_cluster_ad(tmp_path):
    q = _queue(tmp_path)
    txn = q.begin()
    c = entry.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}, {"Args": "7"}]), now=1000)
    assert q.get((c, 0)) is None  # nothing shows before the commit
    _commit(txn)
    a0, a1 = q.get((c, 0)), q.get((c, 1))
    assert (a0["Args"], a1["Args"]) == ("60", "7")
    assert a0["Owner"] == "alice" and a0["User"] == "alice@example.org" and a0["QDate"] == 1000
    assert sorted(a0.own_keys()) == ["GlobalJobId", "ProcId"]


def test_a_change_to_one_proc_leaves_the_others_alone_and_survives_reload(tmp_path):
    q = _queue(tmp_path)
    txn = q.begin()
    c = entry.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}, {}]), now=1000)
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
    c = entry.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}, {}]), now=1000)
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
    c = entry.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}]), now=1000)
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
    c = entry.submit(txn, WHO, Submission.decode(cluster(tmp_path), [{}]), now=1000)
    _commit(txn)
    with pytest.raises(t.QueueError, match="JobStatus"):
        t.edit(q.begin(), (c, 0), "JobStatus", "2")


OWNERS = ["alice", "bob"]


def _recount(q: JobQueue) -> dict:
    out: dict = {}
    for ad in q.jobs.values():
        owner = str(ad.get("Owner"))
        key = (owner, ad.get("AccountingGroup") or owner, ad.get("JobStatus"))
        out[key] = out.get(key, 0) + 1
    return out


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.sampled_from("sHRrxeSFG"), st.integers(0, 50)), max_size=30))
def test_the_counts_by_owner_and_status_follow_every_commit_and_reload(tmp_path_factory, ops):
    """The counts the schedd's collector ads are made of, kept as ads are swapped in,
    always equal a walk of the whole table: through submits (some on hold), holds,
    releases, removals, runs and their ends, an edited cluster ad (its procs' owner
    changes), an accounting group set on a proc or its cluster, and a transaction that
    stages a job twice."""
    path = tmp_path_factory.mktemp("q")
    q = _queue(path)
    now = 1000
    for op, n in ops:
        now += 1
        keys = sorted(q.jobs)
        key = keys[n % len(keys)] if keys else None
        txn = q.begin()
        if op == "s":
            sub = Submission.decode(cluster(path), [{}] * (1 + n % 3))
            who = entry.Submitter(OWNERS[n % 2], "example.org", "schedd@example.org")
            c = entry.submit(txn, who, sub, now=now)
            if n % 4 == 0:
                t.hold(txn, (c, 0), "on hold", 1, 0, now=now)
        elif key is None:
            continue
        elif op == "H":
            t.hold(txn, key, "why not", 1, 0, now=now)
        elif op == "R":
            t.release(txn, key, "go on", now=now)
        elif op == "r":
            t.remove(txn, key, "gone", now=now)
        elif op == "x":
            t.force_remove(txn, key, now=now)
        elif op == "e":
            t.start_running(txn, key, "slot1@x", "<127.0.0.1:1>", now=now)
        elif op == "S":
            t.set_status(txn, key, txn.job(key), JobStatus.COMPLETED, now)
            txn.delete_job(key)
        elif op == "F":
            txn.set_attr((key[0], -1), "Owner", OWNERS[n % 2] + "2")
        elif op == "G":  # its accounting name changes: a proc's own, or its cluster's
            txn.set_attr((key[0], key[1] if n % 2 else -1), "AccountingGroup", f"g{n % 3}.u")
        _commit(txn)
        assert dict(q.counts) == _recount(q)
    q.store.close()
    assert dict(_queue(path).counts) == _recount(q)


def test_destroy_proc_takes_out_only_a_job_done_with_the_queue(tmp_path):
    """DestroyProc, as HTCondor's qmgmt: an idle or running job stays (bad-status); a
    Removed one whose run is still being stopped leaves at once; one LeaveJobInQueue
    keeps stays (kept)."""
    q = _queue(tmp_path)
    txn = q.begin()
    sub = Submission.decode(cluster(tmp_path), [{}, {}, {"LeaveJobInQueue": True}])
    c = entry.submit(txn, WHO, sub, now=1000)
    _commit(txn)
    txn = q.begin()
    for proc in (0, 1, 2):
        t.start_running(txn, (c, proc), f"slot{proc}@x", "<127.0.0.1:1>", now=1001)
    _commit(txn)
    txn = q.begin()
    outcomes = [t.destroy(txn, (c, 0), now=1002)]
    t.remove(txn, (c, 0), "gone", now=1002)
    t.remove(txn, (c, 2), "gone", now=1002)
    outcomes += [t.destroy(txn, (c, p), now=1003) for p in (0, 1, 2)]
    _commit(txn)
    assert outcomes == ["bad-status", "ok", "bad-status", "kept"]
    assert q.get((c, 0)) is None
    assert q.get((c, 1))["JobStatus"] == JobStatus.RUNNING
    assert q.get((c, 2))["JobStatus"] == JobStatus.REMOVED
