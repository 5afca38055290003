"""The queue demo: a personal schedd in a scratch directory, driven with the real tools.

Prints a transcript (each command, then what it printed) of submitting a small
description, watching the queue, holding, releasing and removing jobs, reading the job
event log and the history, and a kill -9 of the schedd that loses nothing.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from condorx.testing.schedd import LocalSchedd

DESCRIPTION = """\
# three jobs, one per input word
executable     = /bin/echo
arguments      = hello $(word) from job $(Cluster).$(Process)
output         = out/$(word).txt
log            = demo.log
request_memory = 1 GB
+Project       = "demo"
queue word in (alpha, beta, gamma)
"""

TOOLS = {
    "condor_submit": "condorx.cli.submit",
    "condor_q": "condorx.cli.q",
    "condor_hold": "condorx.cli.act:hold",
    "condor_release": "condorx.cli.act:release",
    "condor_rm": "condorx.cli.act:rm",
    "condor_history": "condorx.cli.history",
}


def run_demo(echo: Callable[[str], None] = print) -> None:
    with tempfile.TemporaryDirectory(prefix="condorx-demo-") as d:
        root = Path(d)
        schedd = LocalSchedd(root)
        (root / "demo.sub").write_text(DESCRIPTION)
        echo(f"A personal schedd in {root}; its job queue is {root}/spool/job_queue.db\n")
        echo("$ cat demo.sub\n" + DESCRIPTION)
        schedd.start()
        try:
            _transcript(schedd, root, echo)
        finally:
            schedd.stop()


def _transcript(schedd: LocalSchedd, root: Path, echo: Callable[[str], None]) -> None:
    def sh(*argv: str) -> str:
        out = _tool(schedd, root, *argv)
        echo(f"$ {' '.join(argv)}\n{out}")
        return out

    submitted = sh("condor_submit", "demo.sub")
    cluster = submitted.strip().split()[-1].rstrip(".")
    sh("condor_q")
    sh("condor_q", "-nobatch")
    sh("condor_hold", f"{cluster}.1", "-reason", "waiting for beta's input")
    sh("condor_q", "-hold")
    echo("(the schedd is killed with -9 and started again: nothing is lost)\n")
    schedd.kill9()
    schedd.start()
    sh("condor_q", "-af", "ProcId", "JobStatus", "Args", "HoldReason")
    sh("condor_release", f"{cluster}.1")
    sh("condor_rm", cluster)
    sh("condor_history", "-af", "ClusterId", "ProcId", "JobStatus", "RemoveReason")
    echo(f"$ cat demo.log\n{(root / 'demo.log').read_text()}")


def _tool(schedd: LocalSchedd, root: Path, name: str, *args: str) -> str:
    r = schedd.cli(TOOLS[name], *args, check=False, cwd=root, name=name)
    return r.stdout + r.stderr
