"""Real DAG files, each read as condor_dagman reads it, from its own directory: the 227
of HTCondor's own DAGMan tests and examples (`corpus/htcondor/`, sources in
`corpus/SOURCES.tsv`), and 69 from 27 other public repositories: LSST's ctrl_bps_htcondor,
Pegasus, the OSG, CHTC and ATLAS DAGMan tutorials, and users' workflows
(`corpus/public/OWNER__REPO/PATH`, sources in `corpus/PUBLIC_SOURCES.tsv`). Every file
parses, but for those HTCondor's own tests expect to be refused, the fragments that only
other files read, one deliberate difference, and a file Pegasus keeps broken on purpose;
each is listed here with the error it gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorx.language.dag.errors import DagError
from condorx.language.dag.graph import cycle_member
from condorx.language.dag.parse import parse

CORPUS = Path(__file__).parent / "corpus" / "htcondor"
FILES = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.dag"))

REFUSED = {
    # HTCondor's tests of bad DAGs: refused there too.
    "job_dagman_node_name_illegal_chars.dag": "'IllegalNodeName++' may not name a node",
    "job_dagman_splice_connect-F.dag": "Splice1 has 2 output pins, Splice2 1 input pins",
    # Fragments read only by another file (INCLUDE, or a SPLICE run from the top directory).
    "job_dagman_splice_connect-A-inc1.dag": "SpliceA is not a splice",
    "job_dagman_splice_connect-A-inc2.dag": "unknown node NodeA",
    "job_dagman_splice-N-subdir1/job_dagman_splice-N-splice.dag": "cannot read DAG file",
    "job_dagman_splice-N-subdir2/job_dagman_splice-N-splice.dag": "cannot read DAG file",
}


PUBLIC = Path(__file__).parent / "corpus" / "public"
PUBLIC_FILES = sorted(str(p.relative_to(PUBLIC)) for p in PUBLIC.rglob("*.dag"))
PUBLIC_REFUSED = {
    # Pegasus's analyzer test input, broken on purpose (SUBDAG lines of three words).
    "pegasus-isi__pegasus/packages/pegasus-common/test/client/analyzer_samples_dir/sample.dag": (
        "line 1: unexpected 'c' after SUBDAG job0"
    ),
}


def test_the_public_corpus_is_whole():
    assert len(PUBLIC_FILES) == 69
    rows = (PUBLIC.parent / "PUBLIC_SOURCES.tsv").read_text().splitlines()[1:]
    assert sorted(row.split("\t")[0] for row in rows) == PUBLIC_FILES
    assert len({row.split("\t")[1] for row in rows}) == 27


@pytest.mark.parametrize("name", [f for f in PUBLIC_FILES if f not in PUBLIC_REFUSED])
def test_each_public_dag_parses(name):
    path = PUBLIC / name
    dag = parse(path.name, base=path.parent)
    assert dag.nodes or dag.splices


@pytest.mark.parametrize("name", sorted(PUBLIC_REFUSED))
def test_the_broken_public_dag_says_why(name):
    path = PUBLIC / name
    with pytest.raises(DagError, match=PUBLIC_REFUSED[name]):
        parse(path.name, base=path.parent)


def test_a_quoted_submit_file_may_hold_spaces():
    # LSST's ctrl_bps_htcondor quotes every JOB's submit file; one has a space in it.
    d = parse("good.dag", base=PUBLIC / "lsst__ctrl_bps_htcondor" / "tests" / "data")
    assert "jobs/label2/val with spaces/" in " ".join(n.submit for n in d.nodes.values())
    assert all('"' not in n.submit for n in d.nodes.values())


def test_the_corpus_is_whole():
    assert len(FILES) == 227
    sources = (CORPUS.parent / "SOURCES.tsv").read_text().splitlines()[1:]
    assert sorted(line.split("\t")[0] for line in sources) == FILES


@pytest.mark.parametrize("name", [f for f in FILES if f not in REFUSED])
def test_each_dag_parses(name):
    path = CORPUS / name
    dag = parse(path.name, base=path.parent)
    assert dag.nodes or dag.splices or path.read_text().strip()


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_refused_ones_say_why(name):
    path = CORPUS / name
    with pytest.raises(DagError, match=REFUSED[name].replace("+", r"\+")):
        parse(path.name, base=path.parent)


def test_commands_before_the_nodes_they_name_and_continued_lines():
    # A PARENT line before its nodes' JOB lines; a JOBSTATE_LOG and a SET_JOB_ATTR
    # continued on the next line with a backslash.
    d = parse("job_dagman_cmd_order.dag", base=CORPUS)
    assert d.nodes["NodeA"].children == ["NodeB"] and d.nodes["NodeA"].priority == 10
    assert d.nodes["NodeB"].kind == "SUBDAG" and d.final == "NodeZ"
    assert parse("job_dagman_jobstate_log.dag", base=CORPUS).jobstate_log == (
        "job_dagman_jobstate_log.dag.jobstate.log"
    )
    attrs = parse("job_dagman_set_attr2.dag", base=CORPUS).job_attrs
    assert "test_attr1 = 234" in attrs and "test_attr6 = 987" in attrs


@pytest.mark.parametrize(("name", "node"), [("job_dagman_cycle-A.dag", "B")])
def test_a_dag_with_a_cycle_is_read_and_its_cycle_found(name, node):
    # HTCondor's DAGMan runs what it can of such a DAG, then reports the cycle (its test
    # expects node A done and B and C never ready); job_dagman_final-H's cycle is the
    # same, with a FINAL node to run at the end.
    dag = parse(name, base=CORPUS)
    assert cycle_member(dag) == node
    assert cycle_member(parse("job_dagman_final-H.dag", base=CORPUS)) in ("H_B1", "H_B2")
    assert cycle_member(parse("job_dagman_final-A.dag", base=CORPUS)) == ""


def test_splice_pins_connect_output_to_input_nodes():
    # SpliceA's output pins 1 and 2 feed SpliceB's input pins 1 and 2 (nodes of SpliceB
    # itself), and SpliceB's output pins feed SpliceC's input pins.
    d = parse("job_dagman_splice_connect-B.dag", base=CORPUS)
    assert d.nodes["SpliceB+SocketPreA"].parents == ["SpliceA+Node1A"]
    assert d.nodes["SpliceB+SocketPreB"].parents == ["SpliceA+Node1B"]
    assert d.nodes["SpliceC+Node3A"].parents == ["SpliceB+SocketPostA"]
    assert d.nodes["SpliceC+Node3B"].parents == ["SpliceB+SocketPostB"]
