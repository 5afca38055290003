"""The files other tools read, written as a DAG runs: the node status file (read here by
HTCondor's own ClassAd parser, classad2), the jobstate log Pegasus reads, the metrics
file, the DOT file, and the nodes log (read by HTCondor's own htcondor2.JobEventLog)."""

from __future__ import annotations

import json

import classad2
import htcondor2
from test_dagman_run import NODE, cluster_of, finished, submit_dag

DIAMOND = (
    "JOB A node.sub\nJOB B site.sub\nJOB C node.sub\nJOB D node.sub\n"
    "PARENT A CHILD B C\nPARENT B C CHILD D\n"
)


def test_status_jobstate_metrics_dot_and_nodes_log(dag_pool, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "node.sub").write_text(NODE)
    (work / "site.sub").write_text(NODE.replace("queue", '+pegasus_site = "mysite"\nqueue'))
    (work / "x.dag").write_text(
        DIAMOND + "NODE_STATUS_FILE status.txt 0\nJOBSTATE_LOG jobstate.log\nDOT x.dot UPDATE\n"
    )
    cluster = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    assert finished(dag_pool, work, cluster) == ["0", "0", "4"]

    ads = list(classad2.parseAds((work / "status.txt").read_text()))
    assert [ad["Type"] for ad in ads] == ["DagStatus"] + ["NodeStatus"] * 4 + ["StatusEnd"]
    assert ads[0]["DagStatus"] == 5 and ads[0]["NodesDone"] == 4 and ads[0]["NodesFailed"] == 0
    assert list(ads[0]["DagFiles"]) == ["x.dag"]
    assert {ad["Node"]: ad["NodeStatus"] for ad in ads[1:5]} == dict.fromkeys("ABCD", 5)
    assert ads[5]["NextUpdate"] == 0

    lines = [ln.split(None, 1)[1] for ln in (work / "jobstate.log").read_text().splitlines()]
    assert lines[0] == f"INTERNAL *** DAGMAN_STARTED {cluster}.0 ***"
    assert lines[-1] == "INTERNAL *** DAGMAN_FINISHED 0 ***"
    a = [ln.split() for ln in lines if ln.startswith("A ")]
    assert [w[1] for w in a] == ["SUBMIT", "EXECUTE", "JOB_TERMINATED", "JOB_SUCCESS"]
    assert a[0][3:] == ["-", "-", "1"] and a[-1][2] == "0"  # no site; sequence 1; return 0
    b = [ln.split() for ln in lines if ln.startswith("B ")]
    assert b[0][3] == "mysite"

    metrics = json.loads((work / "x.dag.metrics").read_text())
    assert metrics["nodes"] == 4 and metrics["nodes_succeeded"] == 4
    assert metrics["exitcode"] == 0 and metrics["DagStatus"] == 0
    assert metrics["dagman_id"] == f"{cluster}.0" and metrics["jobs_submitted"] == 4

    dot = (work / "x.dot").read_text()
    assert dot.startswith("digraph DAG {\n") and '    "A" -> "B";\n' in dot
    assert '    "D" [shape=ellipse label="D (Done)" style=bold];\n' in dot

    events = list(htcondor2.JobEventLog(str(work / "x.dag.nodes.log")).events(0))
    kinds = [e.type for e in events]
    assert kinds.count(htcondor2.JobEventType.SUBMIT) == 4
    assert kinds.count(htcondor2.JobEventType.JOB_TERMINATED) == 4
    submit = next(e for e in events if e.type == htcondor2.JobEventType.SUBMIT)
    assert submit["LogNotes"] == "DAG Node: A"
