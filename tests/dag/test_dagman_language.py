"""The DAG language's commands, run: inline and named submit descriptions, DIR, NOOP,
SPLICE, SUBDAG EXTERNAL (a DAGMan job of its own), FINAL, ABORT-DAG-ON and SERVICE, on a
real pool, each node writing its name (and the DAG's status) to one file as it runs."""

from __future__ import annotations

from pathlib import Path

from test_dagman_control import queue
from test_dagman_run import cluster_of, finished, history, submit_dag

from condorx.testing.pool import wait_for


def node_sub(order: Path, code: str = "0") -> str:
    return (
        "executable = /bin/sh\n"
        f"arguments = \"-c 'echo $(JOB) $(DAG_STATUS) >> {order}; exit {code}'\"\n"
        "log = job.log\nqueue\n"
    )


def test_every_kind_of_node_runs_in_order(dag_pool, tmp_path):
    work = tmp_path / "work"
    order = work / "order.txt"
    for d in ("", "sub", "spl"):
        (work / d).mkdir(parents=True, exist_ok=True)
        (work / d / "node.sub").write_text(node_sub(order))
    (work / "spl" / "inner.dag").write_text("JOB X node.sub\nJOB Y node.sub\nPARENT X CHILD Y\n")
    (work / "nested.dag").write_text("JOB Z node.sub\n")
    (work / "x.dag").write_text(
        "SUBMIT-DESCRIPTION echo {\n"
        "executable = /bin/sh\n"
        f"arguments = \"-c 'echo $(JOB) named >> {order}'\"\n"
        "}\n"
        "JOB A {\n"
        "executable = /bin/sh\n"
        f"arguments = \"-c 'echo A inline >> {order}'\"\n"
        "}\n"
        "job B echo\n"  # keywords in any case
        "Job C node.sub DIR sub\n"
        "JOB N node.sub NOOP\n"
        "SPLICE S inner.dag DIR spl\n"
        "SUBDAG EXTERNAL D nested.dag\n"
        "FINAL F node.sub\n"
        "PARENT A CHILD B C N\n"
        "parent B C N child S\n"
        "PARENT S CHILD D\n"
    )
    cluster = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    assert finished(dag_pool, work, cluster) == ["0", "0", "8"]
    lines = order.read_text().splitlines()
    assert lines[0] == "A inline" and sorted(lines[1:3]) == ["B named", "C 0"]
    assert lines[3:] == ["S+X 0", "S+Y 0", "Z 0", "F 0"]
    nested = history(dag_pool, f'DAGNodeName == "D" && DAGManJobId == {cluster}', "ClusterId")
    assert history(dag_pool, f"DAGManJobId == {nested[0][0]}", "DAGNodeName") == [["Z"]]
    assert (work / "nested.dag.condor.sub").exists() and (work / "nested.dag.dagman.out").exists()


def test_abort_dag_on_ends_the_dag_and_the_final_node_sees_why(dag_pool, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    order = work / "order.txt"
    (work / "node.sub").write_text(node_sub(order))
    (work / "fails.sub").write_text(node_sub(order, "3"))
    (work / "service.sub").write_text(
        "executable = /bin/sh\narguments = \"-c 'exec sleep 600'\"\nlog = job.log\nqueue\n"
    )
    (work / "x.dag").write_text(
        "JOB A fails.sub\nJOB B node.sub\nPARENT A CHILD B\nABORT-DAG-ON A 3 RETURN 2\n"
        "SERVICE W service.sub\nFINAL F node.sub\n"
    )
    # RETURN 2: the DAGMan job's on_exit_remove lets it leave on exit codes 0 to 2 only
    # (any other is taken for a crash, and DAGMan runs again), on HTCondor as here.
    cluster = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    assert finished(dag_pool, work, cluster) == ["2", "3", "1"]
    assert order.read_text().splitlines() == ["A 0", "F 3"]  # B never ran; F saw ABORT (3)
    # The service node's job is removed when the DAG ends.
    wait_for(lambda: not queue(dag_pool, "true", "ClusterId"), "the queue to empty")
    assert history(dag_pool, 'DAGNodeName == "W"', "JobStatus") == [["3"]]


def test_a_provisioner_node_runs_first_and_the_others_wait_for_it(dag_pool, tmp_path):
    """The provisioner's job says it is ready by setting ProvisionerState = 2 in its own
    ad (condor_qedit, as HTCondor's manual shows), and ends once the work is done."""
    work = tmp_path / "work"
    work.mkdir()
    order = work / "order.txt"
    (work / "node.sub").write_text(node_sub(order))
    (work / "provision.sub").write_text(
        "executable = /bin/sh\ngetenv = true\n"
        f"arguments = \"-c 'echo P >> {order}; condor_qedit $(ClusterId).0 ProvisionerState 2;"
        f" while [ ! -e {work}/done ]; do sleep 0.1; done'\"\n"
        "log = job.log\nqueue\n"
    )
    (work / "last.sub").write_text(node_sub(order).replace("; exit", f"; touch {work}/done; exit"))
    (work / "x.dag").write_text(
        "PROVISIONER P provision.sub\nJOB A node.sub\nJOB B last.sub\nPARENT A CHILD B\n"
    )
    cluster = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    assert finished(dag_pool, work, cluster) == ["0", "0", "3"]
    assert [line.split()[0] for line in order.read_text().splitlines()] == ["P", "A", "B"]
    assert "Provisioner node P is ready" in (work / "x.dag.dagman.out").read_text()
