"""HTCondor's DAG language as DAGMan reads it (the manual's DAGMan chapter): each
command, keywords in any case, ALL_NODES, INCLUDE and SPLICE; and each kind of bad
input refused with the file and line named."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorx.language.dag.errors import DagError
from condorx.language.dag.graph import topological
from condorx.language.dag.parse import parse, parse_files


def dag(tmp_path: Path, text: str, name: str = "x.dag"):
    """The DAG as condor_submit_dag reads it, run in the DAG's directory."""
    path = tmp_path / name
    path.write_text(text)
    return parse(name, base=tmp_path)


def test_jobs_and_edges_with_several_parents_and_children(tmp_path):
    d = dag(
        tmp_path,
        "# a diamond\nJOB A a.sub\njob B b.sub DIR sub\nJoB C c.sub NOOP\nJOB D d.sub DONE\n"
        "PARENT A CHILD B C\nparent B C child D\n",
    )
    assert list(d.nodes) == ["A", "B", "C", "D"]
    assert d.nodes["B"].directory == "sub" and d.nodes["C"].noop and d.nodes["D"].done
    assert d.nodes["A"].children == ["B", "C"] and d.nodes["D"].parents == ["B", "C"]
    assert topological(d) == ["A", "B", "C", "D"]


def test_scripts_with_defer_and_debug_and_their_arguments(tmp_path):
    d = dag(
        tmp_path,
        "JOB A a.sub\nSCRIPT PRE A pre.sh $JOB $RETRY\n"
        "SCRIPT DEFER 4 30 DEBUG post.log STDOUT POST A post.sh $RETURN  two  spaces\n"
        "SCRIPT HOLD A hold.sh\nPRE_SKIP A 23\n",
    )
    a = d.nodes["A"]
    assert a.scripts["PRE"].command == "pre.sh $JOB $RETRY"
    post = a.scripts["POST"]
    assert post.command == "post.sh $RETURN  two  spaces"
    assert (post.defer_status, post.defer_time) == (4, 30)
    assert (post.debug_file, post.debug_type) == ("post.log", "STDOUT")
    assert a.scripts["HOLD"].command == "hold.sh" and a.pre_skip == 23


def test_retry_abort_priority_category_maxjobs(tmp_path):
    d = dag(
        tmp_path,
        "JOB A a.sub\nJOB B b.sub\nRETRY A 3 UNLESS-EXIT 42\nretry B 1\n"
        "ABORT-DAG-ON A 7 RETURN 9\nPRIORITY B -5\nCATEGORY A big\nMAXJOBS big 2\n",
    )
    a, b = d.nodes["A"], d.nodes["B"]
    assert (a.retries, a.retry_unless_exit, b.retries, b.retry_unless_exit) == (3, 42, 1, None)
    assert (a.abort_on, a.abort_return, b.priority) == (7, 9, -5)
    assert a.category == "big" and d.maxjobs == {"big": 2}


def test_vars_with_quotes_attributes_and_placement(tmp_path):
    d = dag(
        tmp_path,
        'JOB A a.sub\nVARS A x="1" +Tag="\\"q\\"" y="a b"\nVARS A PREPEND first="$(JOB)"\n'
        'VARS A My.Path="c:\\\\dir"\n',
    )
    assert d.nodes["A"].vars == [
        ("x", "1", ""),
        ("+Tag", '"q"', ""),
        ("y", "a b", ""),
        ("first", "$(JOB)", "prepend"),
        ("My.Path", "c:\\dir", ""),
    ]


def test_all_nodes_means_every_node_but_the_final_wherever_it_is_said(tmp_path):
    d = dag(
        tmp_path,
        "RETRY ALL_NODES 2\nJOB A a.sub\nJOB B b.sub\nFINAL F f.sub\n"
        'VARS all_nodes v="1"\nSCRIPT POST ALL_NODES p.sh\n',
    )
    assert [d.nodes[n].retries for n in "ABF"] == [2, 2, 0]
    assert d.nodes["B"].vars == [("v", "1", "")] and d.nodes["F"].vars == []
    assert "POST" in d.nodes["A"].scripts and "POST" not in d.nodes["F"].scripts
    assert d.final == "F"


def test_the_runs_settings(tmp_path):
    d = dag(
        tmp_path,
        "JOB A a.sub\nCONFIG dag.config\nDOT x.dot UPDATE DONT-OVERWRITE INCLUDE head.dot\n"
        "NODE_STATUS_FILE status.txt 30 ALWAYS-UPDATE\nJOBSTATE_LOG js.log\n"
        'SAVE_POINT_FILE A\nSET_JOB_ATTR Project = "x y"\nENV GET HOME PATH\n'
        "ENV SET A=1;B=2\nSUBDAG EXTERNAL S inner.dag DIR d\nSERVICE W w.sub\nREJECT\n",
    )
    assert d.config == "dag.config"
    assert d.dot == {"file": "x.dot", "update": True, "overwrite": False, "include": "head.dot"}
    assert d.node_status_file == ("status.txt", 30, True) and d.jobstate_log == "js.log"
    assert d.nodes["A"].save_point == "A-x.dag.save"
    assert d.job_attrs == ['Project = "x y"']
    assert d.env_get == ["HOME,PATH"] and d.env_set == ["A=1;B=2"]
    assert (d.nodes["S"].kind, d.nodes["S"].submit, d.nodes["S"].directory) == (
        "SUBDAG",
        "inner.dag",
        "d",
    )
    assert d.nodes["W"].kind == "SERVICE" and d.reject is not None


def test_inline_descriptions(tmp_path):
    d = dag(
        tmp_path,
        "JOB A {\nexecutable = /bin/true\nqueue\n}\nSUBMIT-DESCRIPTION common {\n"
        "executable = /bin/echo\n}\nJOB B common\nPARENT A CHILD B\n",
    )
    assert d.nodes["A"].inline == "executable = /bin/true\nqueue\n"
    assert d.submit_descriptions == {"common": "executable = /bin/echo\n"}
    assert d.nodes["B"].submit == "common"


def test_include_and_splice(tmp_path):
    (tmp_path / "more.dag").write_text("JOB C c.sub\nPARENT B CHILD C\n")
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "s.dag").write_text("JOB X x.sub\nJOB Y y.sub\nPARENT X CHILD Y\n")
    d = dag(
        tmp_path,
        "JOB A a.sub\nJOB B b.sub\nINCLUDE more.dag\nSPLICE S s.dag DIR inner\n"
        "PARENT A CHILD S\nPARENT S CHILD B\n",
    )
    assert set(d.nodes) == {"A", "B", "C", "S+X", "S+Y"}
    assert d.nodes["S+X"].parents == ["A"] and d.nodes["B"].parents == ["S+Y"]
    assert d.nodes["S+X"].directory == "inner"
    assert topological(d) == ["A", "S+X", "S+Y", "B", "C"]


@pytest.mark.parametrize(
    ("text", "why", "line"),
    [
        ("JOB A a.sub\nFROB A\n", "unknown DAG command 'FROB'", 2),
        ("JOB A a.sub\nPARENT A CHILD Z\n", "unknown node Z", 2),
        ("JOB A a.sub\nJOB A b.sub\n", "node A is defined twice", 2),
        ("JOB A\n", "JOB needs a node name and a file", 1),
        ("JOB A a.sub\nRETRY A many\n", "RETRY's count must be a whole number", 2),
        ("JOB A a.sub\nVARS A x=1\n", 'VARS expects name="value"', 2),
        ('JOB A a.sub\nVARS A queue="1"\n', "VARS may not set queue", 2),
        ("JOB A a.sub\nPARENT A\n", "PARENT without CHILD", 2),
        ("JOB A a.sub\nPARENT A CHILD A\n", "node A is its own parent", 2),
        ("JOB A a.sub\nSCRIPT PRE A\n", "SCRIPT needs PRE, POST or HOLD", 2),
        ("JOB A a.sub\nRETRY A -1\n", "RETRY's count may not be negative", 2),
        ("JOB A a.sub\nRETRY A $(N)\n", "RETRY's count must be a whole number, not '$(N)'", 2),
        ("JOB A a.sub\nPRIORITY A x5\n", "PRIORITY must be a whole number", 2),
        ("JOB A a.sub\nTOLERANCE 2\n", "condorx does not yet run the TOLERANCE command", 2),
        ("JOB A a.sub DIR\n", "DIR needs a directory", 1),
        ("JOB A a.sub\nFINAL F f.sub\nPARENT A CHILD F\n", "a FINAL node (F) has no", 3),
        ("JOB A {\nexecutable = x\n", "has no closing }", 1),
    ],
)
def test_bad_input_names_the_file_and_line(tmp_path, text, why, line):
    with pytest.raises(DagError) as e:
        dag(tmp_path, text)
    assert why in str(e.value)
    assert f"x.dag, line {line}" in str(e.value)


def test_numbers_and_keywords_are_read_as_htcondor_25_reads_them(tmp_path):
    # std::stoi takes a number's leading digits; a keyword's `-` is its `_`, in any case.
    d = dag(
        tmp_path,
        "JOB A a.sub\nRETRY A 2x UNLESS_EXIT 3.5\nPRE-SKIP A +7\nabort_dag_on A 4 return 1\n"
        "submit_description D {\nexecutable = /bin/true\nqueue\n}\nJOB B D\n"
        "DOT x.dot DONT_UPDATE\n",
    )
    a = d.nodes["A"]
    assert (a.retries, a.retry_unless_exit, a.pre_skip) == (2, 3, 7)
    assert (a.abort_on, a.abort_return) == (4, 1)
    assert "D" in d.submit_descriptions and d.dot is not None and d.dot["update"] is False


def test_a_missing_dag_file_is_named(tmp_path):
    with pytest.raises(DagError, match="cannot read DAG file .*nothere.dag"):
        parse(tmp_path / "nothere.dag")


def test_several_files_are_one_dag_and_a_later_file_may_name_earlier_nodes(tmp_path):
    (tmp_path / "one.dag").write_text("JOB A a.sub\nJOB B a.sub\n")
    (tmp_path / "two.dag").write_text("JOB C a.sub\nPARENT A B CHILD C\n")
    d = parse_files([tmp_path / "one.dag", tmp_path / "two.dag"])
    assert list(d.nodes) == ["A", "B", "C"] and d.nodes["C"].parents == ["A", "B"]
    with pytest.raises(DagError, match="two.dag, line 2: unknown node A"):
        parse_files([tmp_path / "two.dag"])


def test_inline_blocks_continued_lines_and_words_after_the_closing_brace(tmp_path):
    d = dag(
        tmp_path,
        "JOB A @=end\nexecutable = /bin/true\nqueue\n@end\n"
        "JOB B {\nexecutable = /bin/false\n} NOOP\n"
        "PARENT A \\\n   CHILD B\n",
    )
    assert d.nodes["A"].inline == "executable = /bin/true\nqueue\n"
    assert d.nodes["B"].noop and d.nodes["B"].parents == ["A"]


def test_a_command_may_name_a_node_defined_further_down(tmp_path):
    d = dag(tmp_path, "PARENT A CHILD B\nRETRY B 2\nJOB A a.sub\nJOB B b.sub\n")
    assert d.nodes["B"].parents == ["A"] and d.nodes["B"].retries == 2


def test_nested_splice_directories_compose_and_files_are_found_from_the_run_directory(
    tmp_path,
):
    (tmp_path / "outer" / "inner").mkdir(parents=True)
    (tmp_path / "outer" / "o.dag").write_text("JOB X x.sub\nSPLICE T i.dag DIR inner\n")
    (tmp_path / "outer" / "inner" / "i.dag").write_text("JOB Y y.sub DIR deep\n")
    d = dag(tmp_path, "SPLICE S o.dag DIR outer\n")
    assert d.nodes["S+X"].directory == "outer"
    assert d.nodes["S+T+Y"].directory == "outer/inner/deep"


def test_connect_needs_as_many_output_pins_as_input_pins(tmp_path):
    (tmp_path / "a.dag").write_text("JOB P p.sub\nJOB Q q.sub\nPIN_OUT P 1\nPIN_OUT Q 2\n")
    (tmp_path / "b.dag").write_text("JOB R r.sub\nPIN_IN R 1\n")
    with pytest.raises(DagError, match="line 3: CONNECT: A has 2 output pins, B 1 input"):
        dag(tmp_path, "SPLICE A a.dag\nSPLICE B b.dag\nCONNECT A B\n")
    (tmp_path / "b.dag").write_text("JOB R r.sub\nJOB S s.sub\nPIN_IN R 1\nPIN_IN S 2\n")
    d = dag(tmp_path, "SPLICE A a.dag\nSPLICE B b.dag\nCONNECT A B\n")
    assert d.nodes["B+R"].parents == ["A+P"] and d.nodes["B+S"].parents == ["A+Q"]
