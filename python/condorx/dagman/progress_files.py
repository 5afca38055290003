"""The files a DAG's progress is written to as it runs, each only when it has something
new: the DOT file (at the start, and with UPDATE as the DAG moves), the node status file
(NODE_STATUS_FILE, at most once per its minimum update time unless ALWAYS-UPDATE, and at
the end), and at the end the metrics file and the jobstate log's last line."""

from __future__ import annotations

import time
from pathlib import Path

from condorx.dagman import metrics, outcome, status_file
from condorx.dagman.debug_log import DebugLog
from condorx.dagman.dot_file import DotFile
from condorx.dagman.engine import Engine
from condorx.dagman.jobstate_log import JobstateLog
from condorx.dagman.options import Options
from condorx.language.dag.model import Dag


class ProgressFiles:
    def __init__(self, dag: Dag, opts: Options, out: DebugLog) -> None:
        self.dag = dag
        self.opts = opts
        self.out = out
        self.dot: DotFile | None = None
        self._dot_sent = ""
        self._status_time = 0.0
        self._status_sent = ""

    def dot_file(self, eng: Engine) -> None:
        if self.dag.dot is None:
            return
        if self.dot is None:
            self.dot = DotFile(self.dag.dot)
        elif not self.dot.update:
            return
        state = str(outcome.counts(eng))
        if state == self._dot_sent:
            return
        self._dot_sent = state
        try:
            self.dot.write(eng)
        except OSError as e:
            self.out(f"Can't create dot file '{self.dot.name}': {e.strerror}")

    def status_file(self, eng: Engine, removed: bool, finished: bool = False) -> None:
        if self.dag.node_status_file is None:
            return
        name, every, always = self.dag.node_status_file
        now = time.monotonic()
        if not finished and now - self._status_time < every:
            return
        state = str(outcome.counts(eng)) + str(eng.held)
        if not finished and not always and state == self._status_sent:
            return
        self._status_time, self._status_sent = now, state
        content = status_file.text(eng, self.opts.dags, finished, removed, every)
        try:
            status_file.write(Path(name), content)
        except OSError as e:
            self.out(f"Warning: can't write node status file {name}: {e.strerror}")

    def reports(
        self,
        eng: Engine,
        code: int,
        started: float,
        job: tuple[int, int],
        rescue_number: int,
        jobstate: JobstateLog | None,
    ) -> None:
        """The metrics file, and the jobstate log's last line."""
        if jobstate:
            jobstate.internal(f"DAGMAN_FINISHED {code}")
        ids = (f"{job[0]}.{job[1]}" if job[0] else "", "")
        path = Path(self.opts.primary + ".metrics")
        try:
            metrics.write(path, eng, started, code, ids, rescue_number)
        except OSError as e:
            self.out(f"Failed to write metrics file {path}: {e.strerror}")
