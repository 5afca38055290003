"""TransferOutputRemaps read and applied as HTCondor's filename_remap_find does; the
first two cases are HTCondor's own unit test (src/condor_unit_tests/FTEST_remaps.cpp)."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorx.classad import ClassAd
from condorx.daemons.schedd import remaps, staging


@pytest.mark.parametrize(
    "text",
    [
        "src_file1=dst_file1;out=_condor_stdout;err=_condor_stderr",
        "src_file1=dst_file1;;out=_condor_stdout;err=_condor_stderr",  # an empty field
    ],
)
def test_htcondors_unit_cases(text):
    rules = remaps.parse(text)
    assert remaps.find(rules, "src_file1") == "dst_file1"
    assert remaps.find(rules, "out") == "_condor_stdout"
    assert remaps.find(rules, "err") == "_condor_stderr"


def test_trimming_escapes_fields_without_equals_chains_and_parents():
    # A name escapes '=' (\=), a target ';' (\;), as copy_upto does.
    rules = remaps.parse(" a.out = /x/a.out ;\tbroken ; eq\\=sign=s\\;t;b=c;c=d;res=/r")
    assert remaps.find(rules, "a.out") == "/x/a.out"
    assert remaps.find(rules, "eq=sign") == "s;t"
    assert remaps.find(rules, "b") == "d"  # rules chain
    assert remaps.find(rules, "res/deep/f.txt") == "/r/deep/f.txt"  # by the parent's rule
    assert remaps.find(rules, "other") is None
    assert remaps.find(remaps.parse("p=q;q=p"), "p") is None  # a cycle maps nothing


def test_outputs_land_by_the_remaps_in_their_directories(tmp_path: Path):
    iwd, elsewhere = tmp_path / "iwd", tmp_path / "elsewhere"
    iwd.mkdir()
    ad = ClassAd(
        {
            "Iwd": str(iwd),
            "Out": "job.out",
            "TransferOutputRemaps": f"0.out = {elsewhere}/outputs/0.out; results = kept",
        }
    )
    files = {
        "_condor_stdout": b"stdout\n",
        "0.out": b"zero",
        "results/": b"",
        "results/a/b.txt": b"deep",
        "empty/": b"",
        "../escape": b"no",
    }
    assert staging._write_outputs(ad, files) is None
    assert (iwd / "job.out").read_bytes() == b"stdout\n"
    assert (elsewhere / "outputs" / "0.out").read_bytes() == b"zero"
    assert (iwd / "kept" / "a" / "b.txt").read_bytes() == b"deep"
    assert (iwd / "empty").is_dir()
    assert not (tmp_path / "escape").exists()
