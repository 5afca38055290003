"""Every form of `queue`, with the macros each proc gets, and procs that share nothing
with the cluster ad carry nothing of their own."""

from __future__ import annotations

import pytest
from test_submit_mapping import CFG, jobs

from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse


def args(text: str, cwd) -> list[str]:
    return [j["Args"] for j in jobs("executable = /bin/echo\n" + text, cwd)]


def test_queue_n(tmp_path):
    assert args("arguments = $(Process) $(Step)\nqueue 3\n", tmp_path) == ["0 0", "1 1", "2 2"]


def test_queue_in_list_inline_and_over_lines(tmp_path):
    assert args("arguments = $(Item)\nqueue in (a, b, c)\n", tmp_path) == ["a", "b", "c"]
    text = "arguments = $(color) $(Step) $(ItemIndex)\nqueue 2 color in (\n red\n blue\n)\n"
    assert args(text, tmp_path) == ["red 0 0", "red 1 0", "blue 0 1", "blue 1 1"]


def test_queue_from_file_and_inline_rows(tmp_path):
    # A file's lines are data: a `#` line is an item, as HTCondor reads it; a blank one is a
    # row that sets nothing, so its proc keeps the row before's values (condor_submit's rows).
    (tmp_path / "rows.txt").write_text("x 1\ny 2\n\n# a comment\nz 3\n")
    assert args("arguments = $(a)=$(b)\nqueue a,b from rows.txt\n", tmp_path) == [
        "x=1",
        "y=2",
        "y=2",
        "#=a comment",
        "z=3",
    ]
    text = "arguments = $(a)/$(b)\nqueue a b from (\n p, q\n\n # a comment\n r, s\n)\n"
    assert args(text, tmp_path) == ["p/q", "p/q", "r/s"]


def test_queue_from_a_command_takes_its_output_as_rows(tmp_path):
    (tmp_path / "list.sh").write_text('#!/bin/sh\necho "$1 1"\necho "$2 2"\n')
    (tmp_path / "list.sh").chmod(0o755)
    text = "arguments = $(a)=$(b)\nqueue a,b from ./list.sh first 'sec ond' |\n"
    # Old-syntax words: the quotes are no quoting, as HTCondor splits a V1 command line.
    assert args(text, tmp_path) == ["first=1", "'sec=2"]
    text = "arguments = $(a)\nqueue a from \"./list.sh first 'sec ond'\" |\n"
    assert args(text, tmp_path) == ["first 1", "sec ond 2"]


def test_queue_from_a_failing_command_fails_the_submission(tmp_path):
    with pytest.raises(SubmitError, match=r"line 3: Error \"/bin/false \|\": .*exit code 1"):
        args("arguments = $(a)\nqueue a from /bin/false |\n", tmp_path)
    with pytest.raises(SubmitError, match="line 3: cannot run /nonexistent/cmd"):
        args("arguments = $(a)\nqueue a from /nonexistent/cmd |\n", tmp_path)


def test_queue_from_nothing_and_queue_0_make_no_procs(tmp_path):
    assert args("arguments = $(a)\nqueue 2 a from $(undefined)\n", tmp_path) == []
    assert args("queue 0\n", tmp_path) == []


def test_no_queue_statement_queues_one_job_or_the_command_lines(tmp_path):
    cfg_facts = Facts.from_config(CFG, str(tmp_path))
    one = build(parse("executable = /bin/true\n", "s"), 1, cfg_facts, CFG)
    assert len(one.procs) == 1
    three = build(parse("executable = /bin/true\n", "s", queue="3"), 1, cfg_facts, CFG)
    assert len(three.procs) == 3
    with pytest.raises(SubmitError, match="-queue argument conflicts with queue statement"):
        parse("executable = /bin/true\nqueue\n", "s", queue="3")


def test_queue_matching_globs(tmp_path):
    for name in ("b.dat", "a.dat", "c.txt"):
        (tmp_path / name).write_text("")
    (tmp_path / "d.dat").mkdir()
    # A matched directory is named with a slash, as HTCondor names it.
    assert args("arguments = $(Item)\nqueue matching *.dat\n", tmp_path) == [
        "a.dat",
        "b.dat",
        "d.dat/",
    ]
    assert args("arguments = $(f)\nqueue f matching files *.dat\n", tmp_path) == ["a.dat", "b.dat"]


def test_several_queue_statements_make_one_cluster(tmp_path):
    text = "arguments = first\nqueue 2\narguments = second $(Process)\nqueue 1\n"
    assert args(text, tmp_path) == ["first", "first", "second 2"]


def test_procs_hold_only_what_differs(tmp_path):
    text = (
        "executable = /bin/echo\narguments = $(Process)\noutput = o.$(Process)\nlog = l\nqueue 3\n"
    )
    built = build(parse(text, "s"), 1, Facts.from_config(CFG, str(tmp_path)), CFG)
    assert built.procs[0] == {}
    assert built.procs[2] == {"Args": "2", "Out": "o.2"}
    plain = build(
        parse("executable = /bin/true\nqueue 4\n", "s"),
        1,
        Facts.from_config(CFG, str(tmp_path)),
        CFG,
    )
    assert plain.procs == [{}, {}, {}, {}]
