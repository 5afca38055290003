"""What a DAG's run comes to: how many nodes are in each status, condor_dagman's exit
code, and the DAG's status at the end (a FINAL node decides it)."""

from __future__ import annotations

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
)


def counts(eng: Engine) -> dict[str, int]:
    """The nodes in each status (FINAL included, as HTCondor's tables count it)."""
    out = dict.fromkeys((DONE, PRERUN, SUBMITTED, POSTRUN, READY, NOT_READY, ERROR, FUTILE), 0)
    for st in eng.states.values():
        out[st.status] += 1
    return out


def left_undone(eng: Engine) -> list[str]:
    """The nodes (FINAL and SERVICE nodes aside) that never became ready: once nothing
    runs, and no node failed, only a cycle leaves any."""
    skip = {eng.dag.final, *eng.services}
    return [n for n, st in eng.states.items() if st.status == NOT_READY and n not in skip]


def exit_code(eng: Engine) -> int:
    """condor_dagman's exit: 0 when every node is done, the ABORT-DAG-ON value when
    a node aborted the DAG, else 1."""
    if eng.aborted is not None:
        return eng.aborted[0]
    final = eng.dag.final
    if final is not None and eng.final_started:
        return 0 if eng.states[final].status == DONE else 1
    if eng.status == DagStatus.HALTED:
        return 1
    return 0 if all(st.status == DONE for st in eng.states.values()) else 1


def final_status(eng: Engine) -> DagStatus:
    final = eng.dag.final
    if final is not None and eng.final_started and eng.aborted is None:
        return DagStatus.OK if eng.states[final].status == DONE else DagStatus.NODE_FAILED
    return eng.status
