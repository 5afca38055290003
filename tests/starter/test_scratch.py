"""A starter's scratch directory, kept from one job of a claim to the next: each job gets
it empty, whatever the one before left in it, and a job of another account gets a
directory of its own."""

from __future__ import annotations

import os
from pathlib import Path

from condorx.daemons.starter.scratch import Scratch
from condorx.host.accounts import Account


def leave_a_mess(path: Path) -> None:
    (path / "out.txt").write_text("the first job's output")
    (path / "sub" / "deeper").mkdir(parents=True)
    (path / "sub" / "deeper" / "f").write_text("x")
    (path / ".hidden").write_text("x")
    os.symlink("/etc", path / "link")  # removed as a link, never followed
    os.mkfifo(path / "fifo")


def test_each_job_of_a_claim_gets_the_same_directory_empty(tmp_path: Path):
    scratch = Scratch("dir_1")
    first = scratch.take(tmp_path, None)
    assert first.is_dir() and not any(first.iterdir())
    assert first.stat().st_mode & 0o777 == 0o700
    leave_a_mess(first)
    scratch.clear()
    second = scratch.take(tmp_path, None)
    assert second == first and not any(second.iterdir())
    assert Path("/etc/passwd").exists()  # the link's target is untouched


def test_a_job_of_another_account_gets_a_fresh_directory(tmp_path: Path):
    me = Account("me", os.getuid(), os.getgid(), ())
    other = Account("other", os.getuid() + 1, os.getgid(), ())
    scratch = Scratch("dir_1")
    first = scratch.take(tmp_path, me)
    (first / "kept").write_text("x")  # not cleared: the account change alone must do
    second = scratch.take(tmp_path, other)
    assert second != first and not first.exists() and not any(second.iterdir())


def test_a_directory_removed_behind_its_back_is_made_again(tmp_path: Path):
    scratch = Scratch("dir_1")
    first = scratch.take(tmp_path, None)
    first.rmdir()
    again = scratch.take(tmp_path, None)
    assert again.is_dir() and again != first


def test_the_directory_goes_with_the_claim(tmp_path: Path):
    scratch = Scratch("dir_1")
    leave_a_mess(scratch.take(tmp_path, None))
    scratch.remove()
    assert list(tmp_path.iterdir()) == []
    scratch.remove()  # twice is no error


def test_a_job_under_another_execute_directory_gets_one_there(tmp_path: Path):
    scratch = Scratch("dir_1")
    first = scratch.take(tmp_path / "a", None)
    second = scratch.take(tmp_path / "b", None)
    assert second.parent == tmp_path / "b" and not first.exists()
