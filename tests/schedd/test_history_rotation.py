"""History rotation (MAX_HISTORY_LOG, MAX_HISTORY_ROTATIONS): the file is set aside once
it grows past its size, only so many old files are kept, and readers (condor_history,
condor_router_history, the router's failure counts) go through all of them."""

from __future__ import annotations

from pathlib import Path

from jobs import cluster, procs

from condorx.classad import ClassAd
from condorx.language import history
from condorx.testing.schedd import LocalSchedd


def _ad(n: int) -> ClassAd:
    return ClassAd({"ClusterId": n, "ProcId": 0, "Owner": "u", "Padding": "x" * 100})


def test_rotation_keeps_the_newest_files_and_reads_through_them(tmp_path: Path):
    path = tmp_path / "history"
    rotation = history.Rotation(max_bytes=600, keep=2)
    for n in range(30):
        history.append(path, [_ad(n)], rotation)
    old = history.rotated(path)
    assert len(old) == 2
    assert all(Path(p).name.startswith("history.") for p in old)
    ids = [ad["ClusterId"] for ad in history.read_newest_first(path)]
    # Newest first, without a gap: the current file, then the rotations, newest first;
    # the oldest jobs went with the rotations no longer kept.
    assert ids[0] == 29 and ids == list(range(29, 29 - len(ids), -1))
    assert 4 < len(ids) < 30
    assert path.stat().st_size < 600 + 300


def test_no_rotation_below_the_size(tmp_path: Path):
    path = tmp_path / "history"
    for n in range(5):
        history.append(path, [_ad(n)], history.Rotation(max_bytes=1 << 20, keep=2))
    assert history.rotated(path) == []
    assert len(list(history.read_newest_first(path))) == 5


def test_the_schedd_rotates_as_configured(tmp_path: Path):
    s = LocalSchedd(tmp_path, "MAX_HISTORY_LOG = 1500\nMAX_HISTORY_ROTATIONS = 3\n")
    try:
        s.start()
        for _ in range(12):
            c = s.call(s.client().submit, cluster(s.root), procs(1))
            s.cli("condorx.cli.act:rm", str(c))
        rotated = history.rotated(tmp_path / "spool" / "history")
        assert len(rotated) == 3
        out = s.cli("condorx.cli.history", "-af", "ClusterId").stdout.split()
        assert out[0] == str(c) and len(out) > 3  # the rotated files are read too
    finally:
        s.stop()
