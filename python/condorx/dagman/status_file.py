"""The node status file (NODE_STATUS_FILE): the DAG's and every node's state as ClassAds,
in HTCondor's format (`Dag::DumpNodeStatus`), rewritten whole (through a temporary file)
as the DAG moves, no more often than its minimum update time allows."""

from __future__ import annotations

import os
import time
from pathlib import Path

from condorx.dagman import outcome
from condorx.dagman.engine import Engine
from condorx.dagman.node_state import (
    DONE,
    ERROR,
    FUTILE,
    NOT_READY,
    POSTRUN,
    PRERUN,
    READY,
    SUBMITTED,
    DagStatus,
    State,
)

# HTCondor's node status numbers (Node::status_t).
NUMBER = {NOT_READY: 0, READY: 1, PRERUN: 2, SUBMITTED: 3, POSTRUN: 4, DONE: 5, ERROR: 6, FUTILE: 7}


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _stamp(t: float) -> str:
    return time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(t))


def dag_state(engine: Engine, finished: bool, removed: bool) -> tuple[str, str]:
    """The DAG's own status and note ("success", "failed", "aborted", "removed")."""
    if finished and outcome.exit_code(engine) == 0:
        return DONE, "success"
    if removed:
        return ERROR, "removed"
    if finished:
        notes = {DagStatus.ABORT: "aborted", DagStatus.CYCLE: "cycle"}
        return ERROR, notes.get(engine.status, "failed")
    if engine.aborted is not None:
        return SUBMITTED, "aborted"
    return SUBMITTED, ""


def text(
    engine: Engine, dag_files: list[str], finished: bool, removed: bool = False, every: int = 0
) -> str:
    """The whole file; `every`: the minimum update time, for its NextUpdate."""
    now = time.time()
    status, note = dag_state(engine, finished, removed)
    c = outcome.counts(engine)
    ended = finished or removed
    failed = c[ERROR] + (c[PRERUN] + c[SUBMITTED] + c[POSTRUN] if ended else 0)
    lines = ["[", '  Type = "DagStatus";', "  DagFiles = {"]
    lines.append(",\n".join(f"    {_quoted(f)}" for f in dag_files))
    lines += [
        "  };",
        f"  Timestamp = {int(now)}; /* {_quoted(_stamp(now))} */",
        f"  DagStatus = {NUMBER[status]}; /* {_quoted(f'STATUS_{status} ({note})')} */",
        f"  NodesTotal = {len(engine.states)};",
        f"  NodesDone = {c[DONE]};",
        f"  NodesPre = {0 if ended else c[PRERUN]};",
        f"  NodesQueued = {0 if ended else c[SUBMITTED]};",
        f"  NodesPost = {0 if ended else c[POSTRUN]};",
        f"  NodesReady = {c[READY]};",
        f"  NodesUnready = {c[NOT_READY]};",
        f"  NodesFutile = {c[FUTILE]};",
        f"  NodesFailed = {failed};",
        f"  JobProcsHeld = {0 if ended else engine.held};",
        f"  JobProcsIdle = {0 if ended else engine.idle}; /* includes held */",
        "]",
    ]
    for name, st in engine.states.items():
        node_status, detail = st.status, ""
        if st.status == SUBMITTED:
            node_status, detail = (
                (ERROR, "Was STATUS_SUBMITTED") if ended else (SUBMITTED, _idleness(st))
            )
        elif st.status in (PRERUN, POSTRUN) and ended:
            node_status, detail = ERROR, f"Was STATUS_{st.status}"
        elif st.status == ERROR:
            detail = st.error
        elif st.status == FUTILE:
            detail = "Had an ancestor node fail"
        elif st.status == DONE and engine.dag.nodes[name].done:
            detail = "User defined as DONE"
        queued = 0 if ended else max(st.queued, 0)
        lines += [
            "[",
            '  Type = "NodeStatus";',
            f"  Node = {_quoted(name)};",
            f"  NodeStatus = {NUMBER[node_status]}; /* {_quoted('STATUS_' + node_status)} */",
            f"  StatusDetails = {_quoted(detail)};",
            f"  RetryCount = {st.retries};",
            f"  JobProcsQueued = {queued};",
            f"  JobProcsHeld = {0 if ended or st.jobs is None else len(st.jobs.held)};",
            "]",
        ]
    end = time.time()
    lines += ["[", '  Type = "StatusEnd";', f"  EndTime = {int(end)}; /* {_quoted(_stamp(end))} */"]
    if ended:
        lines.append('  NextUpdate = 0; /* "none" */')
    else:
        lines.append(f"  NextUpdate = {int(end) + every}; /* {_quoted(_stamp(end + every))} */")
    lines.append("]")
    return "".join(line + "\n" for line in lines)


def _idleness(st: State) -> str:
    return "idle" if st.jobs is not None and 0 in st.jobs.idle else "not_idle"


def write(path: Path, content: str) -> None:
    """Replace the file whole: a reader never sees half of it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(content)
    os.replace(tmp, path)
