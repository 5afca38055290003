"""What HTCondor's DAGMan finds only when it runs, found then by condorx's too, on a real
pool: condor_submit_dag accepts each of these DAGs (as HTCondor's does, with a warning),
and condor_dagman then runs a node whose submit file its PRE script wrote, fails a node
whose file is still missing (its RETRYs given up, its POST script told -1001), runs the
rest of a DAG with a cycle and then reports it (DAG_STATUS 5 for the FINAL node, "cycle"
in the node status file, as HTCondor's tests job_dagman_cycle-A and job_dagman_final-H
expect), refuses a cycle at start under DAGMAN_STARTUP_CYCLE_DETECT, and ends a DAG it
cannot read, each in HTCondor's words in `.dagman.out`."""

from __future__ import annotations

from pathlib import Path

import classad2
from test_dagman_run import NODE, dagman_done, history, script, submit_dag

from condorx.testing.pool import wait_for

MAKE_SUB = (
    "cat > made.sub <<EOF\nexecutable = /bin/sh\n"
    "arguments = \"-c 'echo made > made.out'\"\nlog = job.log\nqueue\nEOF\n"
)

DAGS = {
    "pre_writes": "JOB A made.sub\nSCRIPT PRE A make.sh\n",
    "missing": (
        "JOB A nothere.sub\nJOB B node.sub\nPARENT A CHILD B\nRETRY A 2\n"
        "SCRIPT POST A post.sh $RETURN\n"
    ),
    "cycle": (
        "NODE_STATUS_FILE x.status\nJOB A node.sub\nJOB B node.sub\nJOB C node.sub\n"
        "PARENT A CHILD B\nPARENT B CHILD C\nPARENT C CHILD B\n"
    ),
    "cycle_final": (
        "JOB A node.sub\nJOB B node.sub\nJOB C node.sub\nFINAL F node.sub\n"
        "PARENT A CHILD B\nPARENT B CHILD C\nPARENT C CHILD B\nSCRIPT PRE F final.sh $DAG_STATUS\n"
    ),
    "startup_detect": (
        "CONFIG detect.conf\nJOB A node.sub\nJOB B node.sub\nPARENT A CHILD B\nPARENT B CHILD A\n"
    ),
    "bad_line": "JOB A node.sub\nPARENT A CHILD Z\n",
}


def _setup(tmp_path: Path) -> dict[str, Path]:
    dirs = {}
    for name, text in DAGS.items():
        work = tmp_path / name
        work.mkdir()
        (work / "node.sub").write_text(NODE)
        (work / "x.dag").write_text(text)
        dirs[name] = work
    script(dirs["pre_writes"] / "make.sh", MAKE_SUB)
    script(dirs["missing"] / "post.sh", 'echo "$1" > post.txt; exit 1\n')
    script(dirs["cycle_final"] / "final.sh", 'echo "$1" > final.txt\n')
    (dirs["startup_detect"] / "detect.conf").write_text("DAGMAN_STARTUP_CYCLE_DETECT = True\n")
    return dirs


def test_what_dagman_finds_when_it_runs(dag_pool, tmp_path):
    dirs = _setup(tmp_path)
    clusters = {}
    for name, work in dirs.items():
        r = submit_dag(dag_pool, work, "x.dag")
        assert r.returncode == 0, (name, r.stderr)
        if name != "pre_writes":  # each names what condor_dagman will meet
            assert "WARNING: " in r.stderr, (name, r.stderr)
        clusters[name] = int(r.stdout.split("submitted to cluster ")[1].split(".")[0])
    ends = {
        name: wait_for(lambda c=c: dagman_done(dag_pool, c), f"DAG {name} to end", 120)
        for name, c in clusters.items()
    }
    out = {name: (w / "x.dag.dagman.out").read_text() for name, w in dirs.items()}

    # [ExitCode, DAG_Status, DAG_NodesDone] of each DAGMan job.
    assert ends["pre_writes"] == ["0", "0", "1"], out["pre_writes"]
    assert (dirs["pre_writes"] / "made.out").read_text() == "made\n"

    assert ends["missing"] == ["1", "2", "0"], out["missing"]
    assert (dirs["missing"] / "post.txt").read_text() == "-1001\n"
    assert out["missing"].count("Submitting HTCondor Node A job(s)") == 1
    assert "Event: ULOG_SUBMIT_FAILURE for HTCondor Node A (-1.-1.-1)" in out["missing"]
    assert "Shortcutting node A retries because of submit failure(s)" in out["missing"]
    assert "Submitting HTCondor Node B" not in out["missing"]

    assert ends["cycle"] == ["1", "5", "1"], out["cycle"]
    assert (
        "ERROR: DAG finished but not all nodes are complete -- checking for a cycle..."
        in (out["cycle"])
    )
    assert "... ERROR: a cycle exists in the dag, please check input" in out["cycle"]
    dag_ad = next(iter(classad2.parseAds((dirs["cycle"] / "x.status").read_text())))
    assert (dag_ad["DagStatus"], dag_ad["NodesDone"], dag_ad["NodesUnready"]) == (6, 1, 2)
    assert "STATUS_ERROR (cycle)" in (dirs["cycle"] / "x.status").read_text()
    assert (dirs["cycle"] / "x.dag.rescue001").exists()

    # The FINAL node is told DAG_STATUS 5, and its success is the DAG's.
    assert (dirs["cycle_final"] / "final.txt").read_text() == "5\n", out["cycle_final"]
    assert ends["cycle_final"][0] == "0", out["cycle_final"]

    assert ends["startup_detect"][0] == "1", out["startup_detect"]
    assert "DAGMAN_STARTUP_CYCLE_DETECT setting: True" in out["startup_detect"]
    assert "ERROR: a cycle exists in the dag, please check input" in out["startup_detect"]
    assert "Submitting HTCondor Node" not in out["startup_detect"]

    assert ends["bad_line"][0] == "1", out["bad_line"]
    assert "ERROR: x.dag, line 2: unknown node Z" in out["bad_line"]
    assert "Failed to parse x.dag" in out["bad_line"]
    nodes = history(dag_pool, f"DAGManJobId == {clusters['bad_line']}", "DAGNodeName")
    assert nodes == []
