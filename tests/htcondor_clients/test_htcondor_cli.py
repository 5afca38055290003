"""The `htcondor` command of HTCondor's wheel (htcondor_cli), unchanged, on a condorx
pool: `htcondor job submit` and `htcondor job status` go through the bindings to the
schedd's CEDAR face."""

from __future__ import annotations

from condorx.testing import bindings


def htcondor(pool, *argv: str) -> bindings.Result:
    """The command's run (its logger writes what it says to stderr)."""
    code = f"""
import sys
from htcondor_cli.cli import main
sys.argv = ["htcondor", *{list(argv)!r}]
main()
"""
    return bindings.run(pool, code)


def test_htcondor_job_submit_and_status(pool):
    (pool.root / "one.sub").write_text("executable = /bin/true\nrequest_memory = 256\nqueue\n")
    r = htcondor(pool, "job", "submit", "one.sub")
    assert r.returncode == 0, r.stderr
    words = (r.stdout + r.stderr).split()
    assert words[0] == "Job" and words[2:] == ["was", "submitted."]
    cluster = words[1]
    r = htcondor(pool, "job", "status", cluster)
    assert r.returncode == 0, r.stderr
    lines = (r.stdout + r.stderr).splitlines()
    assert lines[0] == f"Job {cluster} is currently idle."
    assert "It requested 256.000 MB of memory." in lines
