"""The jobstate log (JOBSTATE_LOG), which Pegasus reads: one line per node event,
`TIME NODE EVENT CONDOR_ID JOB_TAG - SEQUENCE`, and DAGMan's own INTERNAL lines, in
HTCondor's format (`jobstate_log.cpp`). A node's job tag is the value its submit file
gives `+pegasus_site` (or the attribute `+job_tag_name` names), else `-`; its sequence
number is given at its first line, and anew when it is retried."""

from __future__ import annotations

import re
import time
from pathlib import Path

from condorx.dagman.node_state import SUBMITTED, State
from condorx.language.dag.model import Dag


class JobstateLog:
    def __init__(self, path: Path, dag: Dag) -> None:
        self.path = path
        self.dag = dag
        self._seq: dict[str, int] = {}
        self._next = 1
        self._tags: dict[str, str] = {}

    def internal(self, what: str) -> None:
        self._write(f"INTERNAL *** {what} ***")

    def node(self, name: str, event: str, condor_id: str = "-", when: float | None = None) -> None:
        if name not in self._seq:
            self._seq[name] = self._next
            self._next += 1
        line = f"{name} {event} {condor_id} {self._tag(name)} - {self._seq[name]}"
        self._write(line, when)

    def retried(self, name: str) -> None:
        self._seq.pop(name, None)

    def job_event(
        self, name: str, old: State, now: State, was: str, event: str, job: str, when: float
    ) -> None:
        """The line for a node's job event (`old`: the node's state before it, `was` its
        status then, `now` its state after), and JOB_SUCCESS or JOB_FAILURE when it was
        the job's last; a retried node starts its sequence anew."""
        self.node(name, event.removeprefix("ULOG_"), job, when)
        if was == SUBMITTED and (now is not old or now.status != SUBMITTED):
            value = old.job_retval if old.job_retval is not None else 0
            outcome = "JOB_SUCCESS" if value == 0 else "JOB_FAILURE"
            self.node(name, outcome, str(value), when)
            if now is not old:
                self.retried(name)

    def _tag(self, name: str) -> str:
        if name not in self._tags:
            self._tags[name] = _job_tag(self.dag, name)
        return self._tags[name]

    def _write(self, info: str, when: float | None = None) -> None:
        stamp = int(when if when else time.time())
        with open(self.path, "a") as f:
            f.write(f"{stamp} {info}\n")


def _job_tag(dag: Dag, name: str) -> str:
    node = dag.nodes[name]
    text = node.inline or dag.submit_descriptions.get(node.submit)
    if text is None:
        try:
            text = (Path(node.directory or ".") / node.submit).read_text()
        except OSError:
            return "-"
    attr = _value(text, "+job_tag_name") or "+pegasus_site"
    return _value(text, attr) or "-"


def _value(text: str, name: str) -> str:
    for line in text.splitlines():
        m = re.match(r"\s*(\S+)\s*=\s*(.*?)\s*$", line)
        if m and m.group(1).lower() == name.lower():
            return m.group(2).strip('"')
    return ""
