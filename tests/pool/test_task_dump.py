"""SIGUSR1 makes a daemon write where its tasks wait to its log (a stalled daemon shows
where it stalled) and what garbage collection has cost it, and the daemon goes on
serving."""

from __future__ import annotations

import os
import re
import signal
import tempfile
from pathlib import Path

from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for


def test_sigusr1_logs_where_a_daemons_tasks_wait_and_it_goes_on():
    with tempfile.TemporaryDirectory(prefix="dump") as d:
        pool = LocalPool(Path(d), QUICK_POOL)
        try:
            pool.start("collector", "schedd")
            schedd = pool.daemon("schedd")
            assert schedd.proc is not None
            log = pool.root / "log" / "SchedLog"
            os.kill(schedd.proc.pid, signal.SIGUSR1)
            wait_for(lambda: "garbage collection so far" in log.read_text(), "the task dump")
            text = log.read_text()
            # The commit loop waits for work, counted with the place it waits at.
            assert "Ledger.run (ledger.py:" in text
            # Start-up's own collection (before its heap is frozen) is counted.
            said = text.split("garbage collection so far: ", 1)[1].splitlines()[0]
            assert re.fullmatch(
                r"generation 0: \d+ in [\d.]+ s \(\d+ collected\), "
                r"generation 1: \d+ in [\d.]+ s \(\d+ collected\), "
                r"generation 2: [1-9]\d* in [\d.]+ s \(\d+ collected\)",
                said,
            ), said
            (pool.root / "job.sub").write_text("executable = /bin/true\nqueue\n")
            assert "1 job(s) submitted" in pool.cli("condorx.cli.submit", "job.sub").stdout
        finally:
            pool.stop()
