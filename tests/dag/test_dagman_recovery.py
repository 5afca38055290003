"""DAGMan cut off in the middle of a DAG, by a real kill -9 of condor_dagman or of the
schedd: the run that follows recovers from the nodes log (and the queue), so that no
node's job is submitted twice and none is lost, and the DAG completes."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from test_dagman_run import NODE, cluster_of, finished, history, submit_dag

from condorx.testing.pool import LocalPool, wait_for

# A waits until the test says go; B and C run at once.
WAITING = """\
executable = /bin/sh
arguments = "-c 'echo $(JOB) >> order.txt; while [ ! -e go ]; do sleep 0.1; done'"
log = job.log
queue
"""
DAG = "JOB A wait.sub\nJOB B node.sub\nJOB C node.sub\nPARENT A CHILD B\nPARENT B CHILD C\n"


def dagman_pids(work: Path) -> list[int]:
    """The condor_dagman processes running in `work`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            where = os.readlink(entry / "cwd")
        except OSError:
            continue
        if any(w.endswith(b"condor_dagman") for w in cmd[:2]) and where == str(work):
            pids.append(int(entry.name))
    return pids


def start(pool: LocalPool, tmp_path: Path) -> tuple[Path, int]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "node.sub").write_text(NODE)
    (work / "wait.sub").write_text(WAITING)
    (work / "x.dag").write_text(DAG)
    cluster = cluster_of(submit_dag(pool, work, "x.dag"))
    wait_for(lambda: (work / "order.txt").exists(), "node A's job to start", 60)
    return work, cluster


def node_clusters(pool: LocalPool, cluster: int) -> list[str]:
    rows = history(pool, f"DAGManJobId == {cluster}", "DAGNodeName")
    return sorted(r[0] for r in rows)


def test_kill_9_of_dagman_mid_dag_recovers_without_running_a_node_twice(dag_pool, tmp_path):
    work, cluster = start(dag_pool, tmp_path)
    (first,) = wait_for(lambda: dagman_pids(work), "condor_dagman to run")
    os.kill(first, signal.SIGKILL)
    # The schedd runs the DAGMan job again (killed by a signal, it is not removed); the
    # new condor_dagman finds the lock file and recovers.
    wait_for(lambda: [p for p in dagman_pids(work) if p != first], "a new condor_dagman", 60)
    wait_for(
        lambda: "...done with RECOVERY mode" in (work / "x.dag.dagman.out").read_text(),
        "recovery to end",
        60,
    )
    (work / "go").touch()
    assert finished(dag_pool, work, cluster) == ["0", "0", "3"]
    assert (work / "order.txt").read_text().split() == ["A", "B", "C"]
    assert node_clusters(dag_pool, cluster) == ["A", "B", "C"]  # one job per node
    assert "Event: ULOG_SUBMIT for HTCondor Node A" in (work / "x.dag.dagman.out").read_text()


def test_kill_9_of_the_schedd_mid_dag_loses_no_node_and_runs_none_twice(dag_pool, tmp_path):
    work, cluster = start(dag_pool, tmp_path)
    schedd = dag_pool.daemon("schedd")
    schedd.kill9()
    schedd.start()
    (work / "go").touch()
    assert finished(dag_pool, work, cluster) == ["0", "0", "3"]
    assert node_clusters(dag_pool, cluster) == ["A", "B", "C"]
    assert (work / "order.txt").read_text().split()[-2:] == ["B", "C"]
    assert dagman_pids(work) == []
