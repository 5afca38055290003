"""The shared ClassAd conformance corpus (HTCondor 25.14.1's own answers), run by its own script."""

from __future__ import annotations

import re
import subprocess
import sys

# The pass rate only ever goes up: raise this floor as the engine improves.
FLOOR = 0.999


def test_conformance_corpus(shared_dir, summary):
    script = shared_dir / "classad-conformance" / "run.py"
    out = subprocess.run(
        [sys.executable, str(script), "--impl", "condorx", "--show-failures", "25"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print(out)
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    assert m, out
    passed, failed = int(m.group(1)), int(m.group(2))
    rate = 100.0 * passed / (passed + failed)
    canonical = re.search(r"canonical unparse agreement.*?([0-9.]+%)", out)
    summary.append(
        f"ClassAd conformance: {passed}/{passed + failed} ({rate:.2f}%) vectors give "
        f"HTCondor's answer; canonical unparse {canonical.group(1) if canonical else '?'}"
    )
    assert passed + failed > 6000, "the corpus shrank"
    assert passed / (passed + failed) >= FLOOR, out
