"""Job factories (late materialization) on a real schedd: max_materialize and max_idle
bound the jobs in the queue, the next job is made as one leaves, a factory survives
kill -9, and removing its cluster stops it."""

from __future__ import annotations

import pytest
from jobs import cluster
from test_submit_query import _ads

from condorx.errors import Refused
from condorx.testing.schedd import LocalSchedd

FIVE = """\
executable = /bin/echo
arguments = job $(Process) of $(Cluster)
output = out.$(Process)
max_materialize = 2
queue 5
"""


def _submit(schedd, text: str) -> int:
    (schedd.root / "job.sub").write_text(text)
    out = schedd.cli("condor_submit", "job.sub").stdout
    assert "5 job(s) submitted" in out or "job(s) submitted" in out
    return int(out.strip().split()[-1].rstrip("."))


def _procs(schedd, c: int) -> list[int]:
    return sorted(ad["ProcId"] for ad in _ads(schedd, f"ClusterId == {c}"))


def _factory_files(schedd) -> list[str]:
    return sorted(p.name for p in (schedd.root).rglob("*submit.*") if p.suffix != ".sub")


def test_max_materialize_bounds_the_queue_and_each_leaving_job_makes_the_next(schedd):
    c = _submit(schedd, FIVE)
    assert _procs(schedd, c) == [0, 1]
    schedd.cli("condor_rm", f"{c}.0")
    assert _procs(schedd, c) == [1, 2]
    schedd.cli("condor_rm", f"{c}.1", f"{c}.2")
    assert _procs(schedd, c) == [3, 4]
    # Each made job is the one condor_submit would have queued.
    by_proc = {ad["ProcId"]: ad for ad in _ads(schedd, f"ClusterId == {c}")}
    assert by_proc[4]["Args"] == f"job 4 of {c}"
    assert by_proc[4]["Out"] == "out.4"
    assert by_proc[4]["TotalSubmitProcs"] == 5
    # condor_submit sent the digest, as HTCondor's does: the schedd built them from it.
    assert _factory_files(schedd) == [f"condor_submit.{c}.digest"]
    schedd.cli("condor_rm", f"{c}.3", f"{c}.4")
    assert _procs(schedd, c) == []
    assert _factory_files(schedd) == []  # the factory left with its cluster


def test_a_factory_over_items_sends_its_procs_and_makes_them_the_same(schedd):
    # Items (here inline) make no digest: condor_submit sends each proc's own attributes.
    items = FIVE.replace("queue 5", "queue word in (a, b, c, d, e)").replace(
        "job $(Process)", "job $(word)"
    )
    c = _submit(schedd, items)
    assert _factory_files(schedd) == [f"condorx_submit.{c}.rows"]
    schedd.cli("condor_rm", f"{c}.0", f"{c}.1")
    assert _procs(schedd, c) == [2, 3]
    schedd.cli("condor_rm", f"{c}.2", f"{c}.3")
    (last,) = _ads(schedd, f"ClusterId == {c}")
    assert last["ProcId"] == 4 and last["Args"] == f"job e of {c}"
    schedd.cli("condor_rm", str(c))


def test_max_idle_counts_held_jobs_as_waiting(schedd):
    c = _submit(schedd, FIVE.replace("max_materialize = 2", "max_idle = 2"))
    assert _procs(schedd, c) == [0, 1]
    schedd.cli("condor_hold", f"{c}.0")
    assert _procs(schedd, c) == [0, 1]  # a held job still waits
    schedd.cli("condor_rm", f"{c}.0")
    assert _procs(schedd, c) == [1, 2]


def test_a_factory_survives_kill9_and_goes_on(schedd):
    c = _submit(schedd, FIVE)
    schedd.kill9()
    schedd.start()
    assert _procs(schedd, c) == [0, 1]
    schedd.cli("condor_rm", f"{c}.1")
    assert _procs(schedd, c) == [0, 2]
    by_proc = {ad["ProcId"]: ad for ad in _ads(schedd, f"ClusterId == {c}")}
    assert by_proc[2]["Args"] == f"job 2 of {c}"


@pytest.mark.parametrize("how", ["cluster", "constraint"])
def test_removing_the_cluster_stops_its_factory(schedd, how):
    c = _submit(schedd, FIVE)
    if how == "cluster":
        schedd.cli("condor_rm", str(c))
    else:
        schedd.cli("condor_rm", "-constraint", f"ClusterId == {c}")
    assert _procs(schedd, c) == []
    assert _factory_files(schedd) == []
    schedd.kill9()
    schedd.start()
    assert _procs(schedd, c) == []


def test_a_digest_and_its_rows_make_the_jobs(schedd):
    """HTCondor's clients send a digest and its rows (the unit separator between values);
    the first job is the cluster ad as sent, the others what the digest makes of theirs."""
    digest = 'FACTORY.Iwd = /tmp\narguments = $(x)\nmy.Tag = "$(y)"\nQueue 1 x,y from rows\n'
    rows = ["a\x1fone", "b\x1ftwo three", "c\x1f"]
    factory = {"limit": 0, "digest": digest, "items": rows}
    c = schedd.call(schedd.client().submit, cluster(schedd.root), [], None, None, factory)
    ads = sorted(_ads(schedd, f"ClusterId == {c}"), key=lambda a: a["ProcId"])
    assert [(a["Args"], a.get("Tag")) for a in ads] == [
        ("60", None),
        ("b", "two three"),
        ("c", ""),
    ]


def test_a_row_that_cannot_make_a_job_pauses_the_factory_with_its_reason(schedd):
    """A later row the digest cannot make into a job stops the factory there (paused as
    invalid, as HTCondor's is), the jobs before it standing."""
    digest = "arguments = $(item)\nQueue 1 item from rows\n"
    ad = cluster(schedd.root)
    bad_first = {"limit": 0, "digest": digest, "items": ['"a', "b"]}
    with pytest.raises(Refused, match="illegal unescaped double-quote"):
        schedd.call(schedd.client().submit, ad, [], None, None, bad_first)
    factory = {"limit": 0, "digest": digest, "items": ["a", "b", 'c"d', "e"]}
    c = schedd.call(schedd.client().submit, ad, [], None, None, factory)
    ads = sorted(_ads(schedd, f"ClusterId == {c}"), key=lambda a: a["ProcId"])
    assert [a["ProcId"] for a in ads] == [0, 1]
    assert ads[0]["JobMaterializePaused"] == -1
    assert ads[0]["JobMaterializeNextProcId"] == 2
    reason = ads[0]["JobMaterializePauseReason"]
    assert reason.startswith("proc 2: the submit digest of cluster") and "line 1" in reason


@pytest.mark.parametrize(
    ("factory", "procs", "why"),
    [
        ({"limit": -1}, [{}], "not a count"),
        ({"limit": 1, "digest": 7}, [], "not text"),
        ({"limit": 1, "digest": "queue 2\nqueue 3\n"}, [], "one queue statement"),
        ({"limit": 1, "digest": "queue\n", "items": [1]}, [], "lines of text"),
        ({"limit": 1, "digest": "queue\n"}, [{}], "takes no procs"),
        ({"limit": 1}, [{"ClusterId": 3}], "set by the schedd"),
    ],
)
def test_a_bad_factory_is_refused_naming_what_is_wrong(schedd, factory, procs, why):
    with pytest.raises(Refused, match=why):
        schedd.call(schedd.client().submit, cluster(schedd.root), procs, None, None, factory)
    assert _ads(schedd) == []
    assert _factory_files(schedd) == []


def test_condor_qedit_of_the_cluster_changes_the_factory_and_the_jobs_to_come(schedd):
    """As HTCondor's: an edit naming the cluster is the cluster ad's, so the limit grows
    at once and the jobs made later carry the edit too."""
    c = _submit(schedd, FIVE)
    schedd.cli("condor_qedit", str(c), "JobMaterializeLimit", "3")
    assert _procs(schedd, c) == [0, 1, 2]
    schedd.cli("condor_qedit", str(c), "Color", '"teal"')
    schedd.cli("condor_rm", f"{c}.0")
    by_proc = {ad["ProcId"]: ad for ad in _ads(schedd, f"ClusterId == {c}")}
    assert sorted(by_proc) == [1, 2, 3]
    assert {p: ad["Color"] for p, ad in by_proc.items()} == {1: "teal", 2: "teal", 3: "teal"}
    with pytest.raises(AssertionError, match="JobMaterializeNextProcId"):
        schedd.cli("condor_qedit", str(c), "JobMaterializeNextProcId", "0")


def test_a_schedd_that_makes_no_factories_says_so(tmp_path):
    """SCHEDD_ALLOW_LATE_MATERIALIZE = false: a factory is refused, naming the knob."""
    s = LocalSchedd(tmp_path, "SCHEDD_ALLOW_LATE_MATERIALIZE = false\n")
    try:
        s.start()
        with pytest.raises(Refused, match="SCHEDD_ALLOW_LATE_MATERIALIZE"):
            s.call(s.client().submit, cluster(tmp_path), [{}, {}], None, None, {"limit": 1})
        assert _ads(s) == []
    finally:
        s.stop()
