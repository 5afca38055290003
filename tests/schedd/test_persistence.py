"""Acknowledged jobs and changes survive kill -9 of the schedd; ids keep counting."""

from __future__ import annotations

from jobs import cluster, procs
from test_submit_query import _ads


def _state(s):
    return sorted((ad["ClusterId"], ad["ProcId"], ad.printOld()) for ad in _ads(s))


def test_kill9_and_restart_recovers_the_queue_exactly(schedd):
    a = schedd.call(schedd.client().submit, cluster(schedd.root), procs(50))
    b = schedd.call(schedd.client().submit, cluster(schedd.root, Args="1"), [{"Args": "2"}, {}])
    schedd.cli("condor_hold", f"{a}.7")
    schedd.cli("condor_rm", f"{a}.8")
    schedd.cli("condor_qedit", f"{b}", "Color", '"blue"')
    before = _state(schedd)
    assert len(before) == 51
    schedd.kill9()
    schedd.start()
    assert _state(schedd) == before
    c = schedd.call(schedd.client().submit, cluster(schedd.root), procs(1))
    assert c == b + 1


def test_kill9_during_a_stream_of_submissions_loses_no_acknowledged_job(schedd):
    acked = []
    for _ in range(20):
        acked.append(schedd.call(schedd.client().submit, cluster(schedd.root), procs(5)))
    schedd.kill9()
    schedd.start()
    clusters = {ad["ClusterId"] for ad in _ads(schedd)}
    assert set(acked) <= clusters
    assert len(_ads(schedd)) == 100
