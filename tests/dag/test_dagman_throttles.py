"""Throttles on a real pool: `-maxjobs` and DAGMAN_MAX_JOBS_SUBMITTED from the DAG's CONFIG
file both keep at most that many node jobs in the queue at once, as the nodes log shows
(each job's submission comes after the previous one left)."""

from __future__ import annotations

import htcondor2
import pytest
from test_dagman_run import NODE, cluster_of, finished, submit_dag

SUBMIT, TERMINATED = htcondor2.JobEventType.SUBMIT, htcondor2.JobEventType.JOB_TERMINATED


@pytest.mark.parametrize("how", ["option", "config"])
def test_at_most_one_node_job_is_queued_at_once(dag_pool, tmp_path, how):
    work = tmp_path / "work"
    work.mkdir()
    (work / "node.sub").write_text(NODE)
    dag = "".join(f"JOB N{i} node.sub\n" for i in range(4))
    args: list[str] = []
    if how == "config":
        (work / "dagman.config").write_text("DAGMAN_MAX_JOBS_SUBMITTED = 1\n")
        dag += "CONFIG dagman.config\n"
    else:
        args = ["-maxjobs", "1"]
    (work / "x.dag").write_text(dag)
    cluster = cluster_of(submit_dag(dag_pool, work, "x.dag", *args))
    assert finished(dag_pool, work, cluster) == ["0", "0", "4"]
    events = htcondor2.JobEventLog(str(work / "x.dag.nodes.log")).events(0)
    kinds = [e.type for e in events if e.type in (SUBMIT, TERMINATED)]
    assert kinds == [SUBMIT, TERMINATED] * 4
