"""Real DAGs from the corpus run on a real pool: HTCondor's own example diamond, a DAG
whose commands come before its nodes (with a SUBDAG EXTERNAL, categories, a FINAL node
and PRE/POST scripts), nested splices in subdirectories, and splices joined by pins.
The DAG files are run as they are; their nodes' submit files and scripts (which are not
part of the corpus) are stood in for by ones that write the node's name and succeed.
Every node runs once, after its parents."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from test_dagman_run import cluster_of, finished, submit_dag

from condorx.language.dag.model import Dag
from condorx.language.dag.parse import parse

CORPUS = Path(__file__).parent / "corpus" / "htcondor"
RUNS = [
    "examples_diamond.dag",
    "job_dagman_cmd_order.dag",
    "job_dagman_splice-N.dag",
    "job_dagman_splice_connect-B.dag",
]


def stand_ins(dag: Dag, work: Path, order: Path) -> set[str]:
    """Write a submit file for each node and a script for each script command; the names
    of the nodes that will write to `order` (sub-DAGs' nodes included)."""
    names = set()
    for node in dag.nodes.values():
        where = work / (node.directory or ".")
        for script in node.scripts.values():
            program = where / script.command.split()[0]
            program.write_text("#!/bin/sh\nexit 0\n")
            program.chmod(0o755)
        if node.kind == "SUBDAG":
            inner = parse(node.submit, base=where)
            names |= stand_ins(inner, where, order)
            continue
        if node.noop:
            continue
        names.add(node.name)
        if node.inline is None and node.submit not in dag.submit_descriptions:
            (where / node.submit).write_text(
                "executable = /bin/sh\n"
                f"arguments = \"-c 'echo $(JOB) >> {order}'\"\n"
                "log = stand-in.log\nqueue\n"
            )
    return names


@pytest.mark.parametrize("name", RUNS)
def test_a_real_dag_runs_every_node_once_after_its_parents(dag_pool, tmp_path, name):
    work = tmp_path / "work"
    shutil.copytree(CORPUS, work)
    order = tmp_path / "order.txt"
    dag = parse(name, base=work)
    expected = stand_ins(dag, work, order)
    cluster = cluster_of(submit_dag(dag_pool, work, name))
    assert finished(dag_pool, work, cluster)[0] == "0", (work / f"{name}.dagman.out").read_text()
    ran = order.read_text().split()
    assert sorted(ran) == sorted(expected)
    at = {n: i for i, n in enumerate(ran)}
    for node in dag.nodes.values():
        for child in node.children:
            if node.name in at and child in at:
                assert at[node.name] < at[child], (node.name, child)
    assert os.path.exists(work / f"{name}.nodes.log")
