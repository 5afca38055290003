"""Which outputs a finished job sends home, named as HTCondor's file transfer names
them: files by base name (or path, PreserveRelativePaths), directories whole, a
directory with a trailing slash by its contents; no link, nothing above the sandbox."""

from __future__ import annotations

import os
from pathlib import Path

from condorx.daemons.starter.output_files import collect


def sandbox(tmp_path: Path) -> Path:
    s = tmp_path / "scratch"
    (s / "out" / "sub").mkdir(parents=True)
    (s / "out" / "a.txt").write_text("a")
    (s / "out" / "sub" / "b.txt").write_text("b")
    (s / "flat" / "empty").mkdir(parents=True)
    (s / "flat" / "c.txt").write_text("c")
    (s / "top.txt").write_text("t")
    (s / "input.dat").write_text("i")
    os.symlink("/etc/passwd", s / "link")
    (tmp_path / "secret").write_text("s")
    return s


def test_unlisted_sends_the_new_top_level_files(tmp_path):
    assert collect(sandbox(tmp_path), None, False, {"input.dat"}) == {"top.txt": b"t"}


def test_listed_files_directories_and_contents(tmp_path):
    got = collect(sandbox(tmp_path), "out/a.txt, out, flat/, link, ../secret, gone", False, set())
    assert got == {
        "a.txt": b"a",
        "out/": b"",
        "out/a.txt": b"a",
        "out/sub/": b"",
        "out/sub/b.txt": b"b",
        "empty/": b"",
        "c.txt": b"c",
    }


def test_preserve_relative_paths(tmp_path):
    got = collect(sandbox(tmp_path), "out/sub/b.txt, out/sub", True, set())
    assert got == {"out/sub/b.txt": b"b", "out/sub/": b""}
