"""A node's job, as DAGMan's direct submission builds it (`dagman_submit.cpp`): the node's
submit description read as condor_submit reads it, with DAGMan's own statements around
it. Those before the file (`$(JOB)`, `$(RETRY)`, ... and the parents' names) may be used
by it; those after it (the node's name, the nodes log, the DAGMan job's id, the node's
VARS) win over it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from condorx.language.dag.model import Dag, Node

# The events DAGMan reads from the nodes log (DagSubmit::GetMask).
EVENT_MASK = "0,1,2,4,5,7,8,9,10,11,12,13,16,17,24,27,35,36"
# Longest parents list a node job's ad gets (HTCondor leaves longer ones unset).
_MAX_PARENTS = 2000


@dataclass(frozen=True, slots=True)
class Context:
    """What every node's job gets from the DAGMan job."""

    dagman_id: int  # the DAGMan job's cluster
    nodes_log: str
    batch_name: str = ""
    batch_id: str = ""
    suppress_notification: bool = False
    priority: int = 0  # -priority: added to each node's own
    retry_attr: bool = False  # DAGMAN_NODE_RECORD_INFO includes Retry
    append_vars: bool = False  # DAGMAN_DEFAULT_APPEND_VARS: VARS not said to be PREPEND
    hold_claim_time: int = 20  # DAGMAN_HOLD_CLAIM_TIME: a node with children keeps its claim
    suppress_job_logs: bool = False  # DAGMAN_SUPPRESS_JOB_LOGS: no log but the nodes log


def statements(
    dag: Dag, node: Node, ctx: Context, retry: int, status: int, failed: int
) -> tuple[list[str], list[str]]:
    """(before the file, after it): the statements DAGMan adds to the node's
    description for this try (`retry` earlier tries; the DAG's status and failures now)."""
    top = [f"JOB = {node.name}", f"RETRY = {retry}"]
    top += [f"DAG_STATUS = {status}", f"FAILED_COUNT = {failed}"]
    parents = _parents(node)
    if parents:
        top.append(f"DAG_PARENT_NAMES = {parents}")
    top.append('MY.DAGParentNodeNames = "$(DAG_PARENT_NAMES)"')
    if ctx.batch_name:
        top.append(f"batch_name = {ctx.batch_name}")
    if ctx.batch_id:
        top.append(f"batch_id = {ctx.batch_id}")
    if ctx.retry_attr and retry > 0:
        top.append(f"MY.DAGManNodeRetry = {retry}")
    priority = node.priority + ctx.priority
    if priority:
        top.append(f"priority = {priority}")
    if node.children and ctx.hold_claim_time > 0:
        top.append(f"keep_claim_idle = {ctx.hold_claim_time}")
    first = [(n, v, _prepended(w, ctx)) for n, v, w in node.vars]
    top += [f"{name} = {value}" for name, value, before in first if before]
    after = [
        f"dag_node_name = {node.name}",
        f"submit_event_notes = DAG Node: {node.name}",
        f"dagman_log = {ctx.nodes_log}",
        f'My.DAGManNodesMask = "{EVENT_MASK}"',
        f"My.DAGManJobId = {ctx.dagman_id}",
        f"DAGManJobId = {ctx.dagman_id}",
    ]
    if ctx.suppress_job_logs:
        after.append("log = ")
    if ctx.suppress_notification:
        after.append("notification = NEVER")
    if node.kind == "SERVICE":
        after.append("My.DAGLifetimeJob = true")
    after += [f"{name} = {value}" for name, value, before in first if not before]
    return top, after


def _prepended(where: str, ctx: Context) -> bool:
    return where == "prepend" or (where == "" and not ctx.append_vars)


def _parents(node: Node) -> str:
    text = ",".join(node.parents)
    return "" if len(text) > _MAX_PARENTS else text


def description(dag: Dag, node: Node) -> tuple[str, str]:
    """(the text, its file name) of the node's submit description: an inline one, a
    SUBMIT-DESCRIPTION, or the file (relative to the node's directory)."""
    if node.inline is not None:
        return node.inline, node.name
    if node.submit in dag.submit_descriptions:
        return dag.submit_descriptions[node.submit], node.submit
    path = Path(node.submit)
    full = path if path.is_absolute() else directory(node) / path
    return full.read_text(), node.submit


def directory(node: Node) -> Path:
    """Where the node's job is submitted from (its DIR, relative to where DAGMan runs)."""
    return Path(os.getcwd()) / (node.directory or ".")
