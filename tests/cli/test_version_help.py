"""condor_version's lines and every tool's --help (which lists its options and, for a
daemon, never starts it)."""

from __future__ import annotations

import re
import subprocess
import sys

from click.testing import CliRunner

from condorx.cli import version


def test_condor_version_prints_htcondors_two_lines():
    out = CliRunner().invoke(version.main, []).output.splitlines()
    assert re.fullmatch(r"\$CondorVersion: 25\.14\.1 \d{4}-\d{2}-\d{2} BuildID: \S+ \$", out[0])
    assert re.fullmatch(r"\$CondorPlatform: [A-Z0-9_]+-\S+ \$", out[1])
    assert len(out) == 2
    assert CliRunner().invoke(version.main, ["-arch"]).output.strip() == version.arch()


def test_help_lists_options():
    from condorx.cli import act, history, q

    for cmd, wanted in [
        (q.main, ["-autoformat", "-format", "-json", "-xml", "-limit", "-userlog"]),
        (act.rm, ["-forcex", "-constraint", "-all", "-reason"]),
        (act.hold, ["-subcode"]),
        (history.main, ["-autoformat", "-json", "-limit"]),
        (version.main, ["-arch", "-opsys"]),
    ]:
        out = CliRunner().invoke(cmd, ["--help"]).output
        for opt in wanted:
            assert opt in out, (cmd.name, opt)


def test_a_daemons_help_does_not_start_it():
    """As HTCondor's: the schedd's usage exits 1; the master's shell sees 0."""
    for module, status, stream in (
        ("condorx.daemons.schedd.__main__", 1, "stderr"),
        ("condorx.daemons.master.main", 0, "stdout"),
    ):
        r = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import sys; sys.argv=['x','--help']; from {module} import main; main()",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == status, r
        assert getattr(r, stream).startswith("Usage: condor_"), r
