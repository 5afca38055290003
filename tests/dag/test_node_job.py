"""A node's job is what HTCondor builds for the node's description with DAGMan's
statements around it. The submit corpus holds such node files (`dagnode_*.sub`, with
DAGMan's statements as condor_submit arguments in `.args`), answered by HTCondor's own
submit code and compared by tests/submit/test_oracle_differential.py; this test keeps
those arguments what condor_dagman says now."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

GENERATED = Path(__file__).parents[1] / "submit" / "corpus" / "generated"
GENERATOR = Path(__file__).parents[1] / "submit" / "oracle" / "generate.py"


def _generator():
    spec = importlib.util.spec_from_file_location("corpus_generate", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _generator()


@pytest.mark.parametrize("name", sorted(gen.DAG_NODES))
def test_the_corpus_node_files_hold_what_condor_dagman_adds(name):
    node, retry, status, failed = gen.DAG_NODES[name]
    args = gen.dag_node_args(node, retry, status, failed)
    assert (GENERATED / f"{name}.sub.args").read_text().splitlines() == args
    assert (GENERATED / f"{name}.sub").read_text() == gen.BASE + gen.DAG_NODE_TEXT


def test_a_node_with_parents_names_them_and_its_vars_follow_the_rules():
    args = gen.dag_node_args("B", 2, 2, 1)
    assert "DAG_PARENT_NAMES=A1,A2" in args and "RETRY=2" in args
    at = args.index("x=1")  # VARS with no PREPEND / APPEND: before the file
    assert args[at + 1 : at + 3] == ['+Tag="tagged"', "output=first.out"]
    appended = args[args.index("-a") :]
    assert ["-a", "log = b.log"] == appended[-4:-2]  # APPEND: after the file, so it wins
    # SET_JOB_ATTR is the DAGMan job's own attribute (condor_submit_dag writes it), not
    # its nodes'.
    assert not any("Project" in a for a in args)
