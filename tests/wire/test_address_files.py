"""Address files: each daemon's published atomically, through a file of its own."""

from __future__ import annotations

from pathlib import Path

from condorx.transport.locate import read_address, staging_file, write_address
from condorx.version import platform_string, version_string


def test_address_files_differing_in_suffix_stage_apart(tmp_path: Path) -> None:
    # A second negotiator (-local-name NEG2) publishes `.negotiator_address.neg2` beside
    # the pool's `.negotiator_address`: once both went through `.negotiator_address.tmp`,
    # and two negotiators starting together published each other's address.
    first = tmp_path / ".negotiator_address"
    second = tmp_path / ".negotiator_address.neg2"
    assert staging_file(first) != staging_file(second)
    assert Path(staging_file(first)).parent == Path(staging_file(second)).parent == tmp_path


def test_written_address_replaces_the_old_and_leaves_no_staging_file(tmp_path: Path) -> None:
    path = tmp_path / "log" / ".schedd_address"
    write_address(path, "<127.0.0.1:1?noUDP>")
    write_address(path, "<127.0.0.1:2?noUDP>")
    # As HTCondor's daemons write it: the address, then the version and platform (its
    # clients take the daemon's version from the file when they find the daemon by it).
    lines = ["<127.0.0.1:2?noUDP>", version_string(), platform_string()]
    assert path.read_text().splitlines() == lines
    assert read_address(str(path)) == "<127.0.0.1:2?noUDP>"
    assert sorted(p.name for p in path.parent.iterdir()) == [".schedd_address"]
