"""A job factory's procs, built one at a time when each is wanted (`Series`), are the
procs `build` makes all at once: on every corpus file with one queue statement (real
submit files and one per command), and on random descriptions."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_incremental import description
from test_submit_mapping import CFG

from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse
from condorx.language.submit.series import Series
from condorx.testing.submit_oracle import FS_DOMAIN, command_line

CORPUS = Path(__file__).parent / "corpus"
MOST_PROCS = 300  # a file's procs compared, at most (the rest are more of the same)


def corpus_in_place() -> Iterator[tuple[Path, dict[str, str], str]]:
    """Each corpus file, with the environment and the user its answers were made with,
    while the working directory is the file's own (`queue ... from` files are its
    neighbours)."""
    answers = json.loads((CORPUS / "answers.json").read_text())
    cwd = os.getcwd()
    try:
        for name in sorted(n for n in answers if not n.startswith("_")):
            path = CORPUS / name
            os.chdir(path.parent)
            yield path, answers["_environ"], answers["_user"]
    finally:
        os.chdir(cwd)


def _both(path: Path, environ: dict[str, str], user: str) -> tuple[object, object] | None:
    """(build's jobs, the Series) of a one-statement file; None for other files."""
    facts = Facts(str(path.parent.resolve()), "X86_64", "LINUX", FS_DOMAIN, user)
    top, append, queue_args = command_line(path)
    text = path.read_text(errors="replace")
    try:
        desc = parse(text, str(path), append, path.name, top, queue_args)
        if len(desc.queues) != 1:
            return None
        jobs = build(desc, 7, facts, None, environ=environ)
        series = Series(desc, 7, facts, None, environ)
    except SubmitError:
        return None
    return jobs, series


def test_every_one_statement_corpus_file_builds_the_same_procs_one_at_a_time():
    compared = 0
    for path, environ, user in corpus_in_place():
        got = _both(path, environ, user)
        if got is None:
            continue
        jobs, series = got
        name = path.name
        assert series.total == len(jobs.procs), name
        if not jobs.procs:
            continue
        assert series.first == jobs.cluster, name
        for proc in range(min(series.total, MOST_PROCS)):
            assert series.diff(proc) == jobs.procs[proc], f"{name} proc {proc}"
        compared += 1
    assert compared >= 480  # 491 of the 606 files have one queue statement and jobs


@settings(max_examples=100, deadline=None)
@given(description())
def test_random_descriptions_build_the_same_procs_one_at_a_time(text):
    with tempfile.TemporaryDirectory() as cwd:
        facts = Facts.from_config(CFG, cwd)
        desc = parse(text, "s")
        if len(desc.queues) != 1:
            return
        jobs = build(desc, 3, facts, CFG)
        series = Series(desc, 3, facts, CFG)
    assert series.first == jobs.cluster
    assert [series.diff(p) for p in range(series.total)] == jobs.procs


@given(st.lists(st.sampled_from(["a", "b c", "", "d\x1fe f", "\x1fg", "  "]), max_size=6))
def test_rows_sent_with_the_factory_are_the_rows_of_its_file(rows):
    """HTCondor's clients send a factory's rows, the unit separator between values; the
    rows stand in for the `from` file, a blank row keeping the values before it."""
    text = "executable = /bin/echo\narguments = [$(x)] [$(y)]\nqueue 2 x,y from rows.txt\n"
    with tempfile.TemporaryDirectory() as cwd:
        Path(cwd, "rows.txt").write_text("".join(r + "\n" for r in rows))
        facts = Facts.from_config(CFG, cwd)
        jobs = build(parse(text, "s"), 3, facts, CFG)
        series = Series(parse(text, "s"), 3, facts, CFG, rows=list(rows))
    assert series.total == len(jobs.procs) == 2 * len(rows)
    assert [series.diff(p) for p in range(series.total)] == jobs.procs


def test_the_unit_separator_alone_splits_a_row():
    """`1\\x1f2 3`: x is 1 and y is `2 3` (blanks are data, not separators)."""
    text = "executable = /bin/echo\narguments = [$(x)] [$(y)]\nqueue x,y from rows.txt\n"
    with tempfile.TemporaryDirectory() as cwd:
        series = Series(parse(text, "s"), 3, Facts.from_config(CFG, cwd), CFG, rows=["1\x1f2 3"])
    assert series.first["Args"] == "[1] [2 3]"


def test_a_factory_takes_one_queue_statement():
    text = "executable = /bin/echo\nqueue 2\nqueue 3\n"
    with pytest.raises(SubmitError, match="one queue statement"):
        Series(parse(text, "s"), 3, Facts.from_config(CFG, "/"), CFG)
