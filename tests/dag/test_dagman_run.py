"""DAGs run by condor_dagman on a real pool: condor_submit_dag submits the DAGMan job,
the schedd runs it in the scheduler universe, and it submits the nodes' jobs in order."""

from __future__ import annotations

import subprocess
from pathlib import Path

from condorx.testing import personal
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


history = personal.history


def dagman_done(pool: LocalPool, cluster: int) -> list[str] | None:
    rows = history(pool, f"ClusterId == {cluster}", "ExitCode", "DAG_Status", "DAG_NodesDone")
    return rows[0] if rows else None


def test_a_diamond_runs_parents_before_children(dag_pool, tmp_path):
    work = workdir(tmp_path)
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


def workdir(tmp_path: Path) -> Path:
    """A directory for a DAG, with the node submit file most tests use."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "node.sub").write_text(NODE)
    return work


def cluster_of(r: subprocess.CompletedProcess) -> int:
    assert r.returncode == 0, r.stdout + r.stderr
    return int(r.stdout.split("submitted to cluster ")[1].split(".")[0])


def finished(pool: LocalPool, work: Path, cluster: int) -> list[str]:
    done = wait_for(lambda: dagman_done(pool, cluster), "the DAG to finish", 90)
    assert done is not None
    return done


def test_a_failed_node_leaves_a_rescue_dag_and_the_next_run_does_only_the_rest(dag_pool, tmp_path):
    work = workdir(tmp_path)
    dag = (
        "JOB A node.sub\nJOB B node.sub\nJOB C node.sub\n"
        "PARENT A CHILD B\nPARENT B CHILD C\nRETRY B 1\n"
    )
    (work / "x.dag").write_text(dag + 'VARS B code="3"\n')
    first = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    assert finished(dag_pool, work, first) == ["1", "2", "1"]
    assert (work / "order.txt").read_text().split() == ["A", "B", "B"]  # B ran twice (RETRY 1)
    out = (work / "x.dag.dagman.out").read_text()
    assert "Retrying node B (retry #1 of 1)..." in out and "Parsing x.dag ..." in out
    assert "** $CondorVersion: 25.14.1 " in out
    rescue = (work / "x.dag.rescue001").read_text()
    assert "# Nodes that failed: 1\n#   B,<ENDLIST>\n" in rescue and "\nDONE A\n" in rescue
    assert "DONE B" not in rescue and "DONE C" not in rescue
    (work / "x.dag").write_text(dag)  # B fixed; the same DAG is submitted again
    r = submit_dag(dag_pool, work, "x.dag")
    assert "Running rescue DAG 1" in r.stdout
    second = cluster_of(r)
    assert finished(dag_pool, work, second) == ["0", "0", "3"]
    assert (work / "order.txt").read_text().split() == ["A", "B", "B", "B", "C"]


def script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def test_pre_and_post_scripts_get_their_macros_and_post_decides(dag_pool, tmp_path):
    work = workdir(tmp_path)
    script(work / "pre.sh", 'echo "pre $*" >> scripts.txt\n')
    script(work / "post.sh", 'echo "post $*" >> scripts.txt\nexit 0\n')
    script(work / "bad_pre.sh", "exit 2\n")
    (work / "x.dag").write_text(
        "JOB A node.sub\nJOB B node.sub\nJOB C node.sub\nPARENT B CHILD C\n"
        'VARS A code="4"\nSCRIPT PRE A pre.sh $JOB $RETRY $RETURN\n'
        "SCRIPT POST A post.sh $JOB $RETURN $PRE_SCRIPT_RETURN $JOBID\n"
        "SCRIPT PRE B bad_pre.sh\n"
    )
    cluster = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    assert finished(dag_pool, work, cluster) == ["1", "2", "1"]
    a = history(dag_pool, f'DAGNodeName == "A" && DAGManJobId == {cluster}', "ClusterId")
    assert (work / "scripts.txt").read_text().splitlines() == [
        "pre A 0 $RETURN",  # $RETURN means nothing yet: the word stays as it is
        f"post A 4 0 {a[0][0]}.0",
    ]
    assert (work / "order.txt").read_text().split() == ["A"]  # B's PRE failed: B, C never ran
    out = (work / "x.dag.dagman.out").read_text()
    # In HTCondor's words (pegasus-monitord reads them).
    assert "PRE Script of Node B failed with status 2" in out
    assert "PRE Script of node A completed successfully." in out
    assert "POST Script of node A completed successfully." in out
    assert f"Node A job proc ({a[0][0]}.0.0) failed with status 4." in out
    assert "\nDONE A\n" in (work / "x.dag.rescue001").read_text()


def test_defer_debug_hold_scripts_and_pre_skip(dag_pool, tmp_path):
    work = workdir(tmp_path)
    (work / "held.sub").write_text(NODE.replace("queue", "hold = true\nqueue"))
    # The PRE script asks to be run again later (DEFER 4 1) the first time it runs.
    script(
        work / "once_later.sh",
        "if [ -e tried ]; then echo second; exit 0; fi\ntouch tried; echo first; exit 4\n",
    )
    script(work / "on_hold.sh", 'echo "held $1" >> holds.txt\n')
    script(work / "skip.sh", "exit 9\n")
    (work / "x.dag").write_text(
        "JOB A node.sub\nJOB B held.sub\nJOB C node.sub\n"
        "SCRIPT DEFER 4 1 DEBUG pre.out STDOUT PRE A once_later.sh\n"
        "SCRIPT HOLD B on_hold.sh $JOB\n"
        "SCRIPT PRE C skip.sh\nPRE_SKIP C 9\n"
    )
    cluster = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    wait_for(lambda: (work / "holds.txt").exists(), "the HOLD script", 60)
    assert (work / "holds.txt").read_text() == "held B\n"
    (b,) = [
        row
        for row in personal.queue(dag_pool, f"DAGManJobId == {cluster}", "ClusterId", "DAGNodeName")
        if row[1] == "B"
    ]
    subprocess.run(["condor_release", b[0]], env=dag_pool.env, check=True, capture_output=True)
    assert finished(dag_pool, work, cluster) == ["0", "0", "3"]
    assert (work / "pre.out").read_text() == "first\nsecond\n"  # DEBUG: its output, twice
    assert sorted((work / "order.txt").read_text().split()) == ["A", "B"]  # C skipped


def test_a_save_point_file_and_a_run_from_it(dag_pool, tmp_path):
    work = workdir(tmp_path)
    (work / "x.dag").write_text(
        "JOB A node.sub\nJOB B node.sub\nJOB C node.sub\nPARENT A CHILD B\nPARENT B CHILD C\n"
        "SAVE_POINT_FILE B\n"
    )
    first = cluster_of(submit_dag(dag_pool, work, "x.dag"))
    assert finished(dag_pool, work, first) == ["0", "0", "3"]
    saved = (work / "save_files" / "B-x.dag.save").read_text()
    assert saved.startswith("# Save file written at Start Node B\n")
    assert "\nDONE A\n" in saved and "DONE B" not in saved
    # From the save point: A is done, B and C run again.
    second = cluster_of(submit_dag(dag_pool, work, "x.dag", "-load_save", "B-x.dag.save"))
    assert finished(dag_pool, work, second) == ["0", "0", "3"]
    assert (work / "order.txt").read_text().split() == ["A", "B", "C", "B", "C"]
