"""Controlling a running DAG as HTCondor users do: condor_rm of the DAGMan job removes its
node jobs; condor_hold pauses the DAG (its running jobs go on) and condor_release resumes
it, in recovery mode; a halt file stops new work until it is removed."""

from __future__ import annotations

import subprocess

from test_dagman_recovery import WAITING, dagman_pids, start
from test_dagman_run import NODE, cluster_of, finished, history, submit_dag

from condorx.testing import personal
from condorx.testing.pool import LocalPool, wait_for
from condorx.transport.security import current_user


def tool(pool: LocalPool, *argv: str) -> str:
    r = subprocess.run(argv, env=pool.env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


queue = personal.queue


def test_condor_rm_of_the_dagman_job_removes_its_node_jobs(dag_pool, tmp_path):
    work, cluster = start(dag_pool, tmp_path)
    assert queue(dag_pool, f"DAGManJobId == {cluster}", "DAGNodeName") == [["A"]]
    tool(dag_pool, "condor_rm", str(cluster))
    wait_for(lambda: not queue(dag_pool, "true", "ClusterId"), "the queue to empty", 60)
    removed = history(dag_pool, f"DAGManJobId == {cluster}", "DAGNodeName", "JobStatus")
    assert removed == [["A", "3"]]
    assert "Received SIGUSR1" in (work / "x.dag.dagman.out").read_text()
    assert "\nDONE " not in (work / "x.dag.rescue001").read_text()  # A did not finish


def test_hold_pauses_the_dag_and_release_resumes_it_in_recovery(dag_pool, tmp_path):
    work, cluster = start(dag_pool, tmp_path)
    tool(dag_pool, "condor_hold", str(cluster))
    wait_for(lambda: not dagman_pids(work), "condor_dagman to stop")
    (work / "go").touch()  # A ends while the DAG is held: nothing follows it
    wait_for(lambda: history(dag_pool, 'DAGNodeName == "A"', "ExitCode"), "A to end", 60)
    assert queue(dag_pool, "true", "ClusterId", "JobStatus") == [[str(cluster), "5"]]
    tool(dag_pool, "condor_release", str(cluster))
    assert finished(dag_pool, work, cluster) == ["0", "0", "3"]
    assert (work / "order.txt").read_text().split() == ["A", "B", "C"]
    assert "Running in RECOVERY mode" in (work / "x.dag.dagman.out").read_text()


def test_a_halt_file_stops_new_work_until_it_is_removed(dag_pool, tmp_path):
    work, cluster = start(dag_pool, tmp_path)
    (work / "x.dag.halt").touch()
    wait_for(lambda: "DAG halted" in (work / "x.dag.dagman.out").read_text(), "the halt")
    (work / "go").touch()
    wait_for(lambda: history(dag_pool, 'DAGNodeName == "A"', "ExitCode"), "A to end", 60)
    # Halted with nothing running: DAGMan writes a rescue DAG and exits.
    assert finished(dag_pool, work, cluster) == ["1", "6", "1"]
    assert (work / "order.txt").read_text().split() == ["A"]
    assert "\nDONE A\n" in (work / "x.dag.rescue001").read_text()


def test_condor_q_shows_a_running_dag_as_one_batch_and_as_a_tree(dag_pool, tmp_path):
    work, cluster = start(dag_pool, tmp_path)
    counts = "DAG_NodesTotal DAG_NodesDone DAG_NodesQueued DAG_NodesUnready DAG_Status".split()
    wait_for(
        lambda: queue(dag_pool, f"ClusterId == {cluster}", *counts) == [["3", "0", "1", "2", "0"]],
        "the DAGMan job's DAG_* attributes",
    )
    (a,) = queue(dag_pool, f"DAGManJobId == {cluster}", "ClusterId")
    lines = tool(dag_pool, "condor_q").splitlines()
    (row,) = [ln for ln in lines if f"x.dag+{cluster}" in ln]
    # DONE _  RUN 1  IDLE _  HOLD _  TOTAL 3  JOB_IDS: the node job's (not DAGMan's)
    assert row.split()[-6:] == ["_", "1", "_", "_", "3", f"{a[0]}.0"], row
    tree = tool(dag_pool, "condor_q", "-dag").splitlines()
    assert any("OWNER/NODENAME" in t for t in tree)
    ours = [t.split()[:2] for t in tree if t.split()[:1] in ([f"{cluster}.0"], [f"{a[0]}.0"])]
    assert ours == [[f"{cluster}.0", current_user()], [f"{a[0]}.0", "|-A"]]
    (work / "go").touch()
    assert finished(dag_pool, work, cluster) == ["0", "0", "3"]


def test_removing_a_stopped_dagman_job_removes_its_nodes_through_the_schedd(dag_pool, tmp_path):
    """With condor_dagman not running (held), the DAGMan job's OtherJobRemoveRequirements
    is what removes its node jobs: the schedd applies it, as HTCondor's does."""
    work, cluster = start(dag_pool, tmp_path)
    tool(dag_pool, "condor_hold", str(cluster))
    wait_for(lambda: not dagman_pids(work), "condor_dagman to stop")
    assert queue(dag_pool, f"DAGManJobId == {cluster}", "DAGNodeName") == [["A"]]
    tool(dag_pool, "condor_rm", str(cluster))
    wait_for(lambda: not queue(dag_pool, "true", "ClusterId"), "the queue to empty", 60)
    (removed,) = history(dag_pool, f"DAGManJobId == {cluster}", "JobStatus", "RemoveReason")
    assert removed[0] == "3"
    assert " ".join(removed[1:]) == (
        f"removed because <OtherJobRemoveRequirements = DAGManJobId =?= {cluster}> fired"
        f" when job ({cluster}.0) was removed"
    )


def test_condor_rm_runs_the_final_node_after_removing_the_others(dag_pool, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "node.sub").write_text(NODE)
    (work / "wait.sub").write_text(WAITING)
    (work / "x.dag").write_text(
        "JOB A wait.sub\nJOB B node.sub\nPARENT A CHILD B\nFINAL F node.sub\n"
    )
    cluster = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    wait_for(lambda: (work / "order.txt").exists(), "node A's job to start", 60)
    tool(dag_pool, "condor_rm", str(cluster))
    wait_for(lambda: not queue(dag_pool, "true", "ClusterId"), "the queue to empty", 60)
    assert (work / "order.txt").read_text().split() == ["A", "F"]
    rows = history(dag_pool, f"DAGManJobId == {cluster}", "DAGNodeName", "JobStatus")
    assert sorted(rows) == [["A", "3"], ["F", "4"]]
