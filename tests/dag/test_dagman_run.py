"""DAGs run by condor_dagman on a real pool: condor_submit_dag submits the DAGMan job,
the schedd runs it in the scheduler universe, and it submits the nodes' jobs in order."""

from __future__ import annotations

import subprocess
from pathlib import Path

from condorx.testing.pool import LocalPool, wait_for

NODE = """\
executable = /bin/sh
arguments = "-c 'echo $(JOB) >> order.txt; exit $(code:0)'"
output = $(JOB).out
log = job.log
queue
"""


def submit_dag(pool: LocalPool, where: Path, dag: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["condor_submit_dag", *args, dag], cwd=where, env=pool.env, capture_output=True, text=True
    )


def history(pool: LocalPool, constraint: str, *attrs: str) -> list[list[str]]:
    out = subprocess.run(
        ["condor_history", "-constraint", constraint, "-af", *attrs],
        env=pool.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.split() for line in out.splitlines()]


def dagman_done(pool: LocalPool, cluster: int) -> list[str] | None:
    rows = history(pool, f"ClusterId == {cluster}", "ExitCode", "DAG_Status", "DAG_NodesDone")
    return rows[0] if rows else None


def test_a_diamond_runs_parents_before_children(dag_pool, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "node.sub").write_text(NODE)
    (work / "diamond.dag").write_text(
        "JOB A node.sub\nJOB B node.sub\nJOB C node.sub\nJOB D node.sub\n"
        "PARENT A CHILD B C\nPARENT B C CHILD D\n"
    )
    r = submit_dag(dag_pool, work, "diamond.dag")
    assert r.returncode == 0, r.stderr
    cluster = int(r.stdout.split("submitted to cluster ")[1].split(".")[0])
    done = wait_for(lambda: dagman_done(dag_pool, cluster), "the DAG to finish", 90)
    assert done == ["0", "0", "4"], (work / "diamond.dag.dagman.out").read_text()
    order = (work / "order.txt").read_text().split()
    assert order[0] == "A" and order[-1] == "D" and sorted(order[1:3]) == ["B", "C"]
    nodes = history(dag_pool, f"DAGManJobId == {cluster}", "DAGNodeName", "DAGParentNodeNames")
    assert sorted(map(tuple, nodes)) == [("A",), ("B", "A"), ("C", "A"), ("D", "B,C")]
