"""Every form of `queue`, with the macros each proc gets, and procs that share nothing
with the cluster ad carry nothing of their own."""

from __future__ import annotations

from test_submit_mapping import CFG, jobs

from condorx.submit.build import Facts, build
from condorx.submit.parse import parse


def args(text: str, cwd) -> list[str]:
    return [j["Args"] for j in jobs("executable = /bin/echo\n" + text, cwd)]


def test_queue_n(tmp_path):
    assert args("arguments = $(Process) $(Step)\nqueue 3\n", tmp_path) == ["0 0", "1 1", "2 2"]


def test_queue_in_list_inline_and_over_lines(tmp_path):
    assert args("arguments = $(Item)\nqueue in (a, b, c)\n", tmp_path) == ["a", "b", "c"]
    text = "arguments = $(color) $(Step) $(ItemIndex)\nqueue 2 color in (\n red\n blue\n)\n"
    assert args(text, tmp_path) == ["red 0 0", "red 1 0", "blue 0 1", "blue 1 1"]


def test_queue_from_file_and_inline_rows(tmp_path):
    # A file's lines are data: a `#` line is an item, as HTCondor reads it; a blank one is
    # skipped (HTCondor's Python bindings repeat the previous item there: see the docs).
    (tmp_path / "rows.txt").write_text("x 1\ny 2\n\n# a comment\nz 3\n")
    assert args("arguments = $(a)=$(b)\nqueue a,b from rows.txt\n", tmp_path) == [
        "x=1",
        "y=2",
        "#=a comment",
        "z=3",
    ]
    text = "arguments = $(a)/$(b)\nqueue a b from (\n p, q\n r, s\n)\n"
    assert args(text, tmp_path) == ["p/q", "r/s"]


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
