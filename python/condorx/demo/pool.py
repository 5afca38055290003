"""The pool demo (README's first command): a personal pool in a scratch directory runs
real jobs, shown with the tools a user would type.

    condorx pool up --dir D; condor_submit; condor_q; condor_status; condor_history;
    the jobs' output files; condorx pool down
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

DESCRIPTION = """\
# Three real jobs: each reports where it ran and what it was given.
executable = /bin/sh
arguments  = "-c 'echo job $(Process) got $1 and ran on `hostname` in `pwd`; sleep 1' x $(word)"
output     = out/$(word).txt
error      = out/$(word).err
log        = demo.log
queue word in (alpha, beta, gamma)
"""


def run_demo(echo: Callable[[str], None] = print) -> None:
    with tempfile.TemporaryDirectory(prefix="condorx-pool-") as d:
        root = Path(d)
        env = {**os.environ, "CONDORX_CONFIG": str(root / "condor_config")}

        def sh(*argv: str) -> str:
            r = subprocess.run(
                [sys.executable, "-m", "condorx.cli.main", *argv],
                env=env,
                cwd=root,
                capture_output=True,
                text=True,
            )
            echo(f"$ condorx {' '.join(argv)}\n{r.stdout}{r.stderr}")
            return r.stdout

        sh("pool", "up", "--dir", str(root))
        try:
            (root / "out").mkdir()
            (root / "demo.sub").write_text(DESCRIPTION)
            echo("$ cat demo.sub\n" + DESCRIPTION)
            sh("submit", "demo.sub")
            sh("q", "-nobatch")
            sh("status")
            _wait_done(root, env, 3)
            sh("q")
            sh("history")
            for word in ("alpha", "beta", "gamma"):
                echo(f"$ cat out/{word}.txt\n{(root / 'out' / f'{word}.txt').read_text()}")
            echo(f"$ cat demo.log   (the job event log)\n{(root / 'demo.log').read_text()}")
        finally:
            sh("pool", "down")


def _wait_done(root: Path, env: dict[str, str], count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = subprocess.run(
            [sys.executable, "-m", "condorx.cli.main", "history", "-af", "ProcId"],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
        )
        if len(r.stdout.split()) >= count:
            return
        time.sleep(0.5)
    raise RuntimeError("the demo's jobs did not finish in time")
