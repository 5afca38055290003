"""README's first command: a personal pool comes up, runs three real jobs, goes down."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from condorx.demo.pool import run_demo

pytestmark = pytest.mark.daemons  # starts its own daemons


def _masters() -> set[str]:
    """The demo's masters: those whose configuration lies in a demo pool's directory (the
    suite runs on two workers, so other tests' masters come and go meanwhile)."""
    r = subprocess.run(["pgrep", "-f", "condorx.daemons master"], capture_output=True, text=True)
    return {pid for pid in r.stdout.split() if "/condorx-pool-" in _config_of(pid)}


def _config_of(pid: str) -> str:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:  # gone meanwhile
        return ""
    found = [e for e in environ if e.startswith(b"CONDORX_CONFIG=")]
    return found[0].decode(errors="replace") if found else ""


def test_pool_demo_runs_real_jobs():
    before = _masters()
    lines: list[str] = []
    run_demo(lines.append)
    assert _masters() - before == set(), "condorx pool down left its master running"
    text = "\n".join(lines)
    assert "Personal pool up in" in text and "Pool stopped." in text
    assert "3 job(s) submitted to cluster 1." in text
    for p, word in enumerate(("alpha", "beta", "gamma")):
        assert f"job {p} got {word} and ran on" in text
    assert text.count("Job terminated.") == 3
    assert "(1) Normal termination (return value 0)" in text
