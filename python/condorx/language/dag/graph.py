"""The order of a DAG's nodes, parents before children, and its cycles: a DAG may be read
with one (HTCondor's DAGMan runs what it can of it, then reports the cycle)."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from condorx.language.dag.errors import DagError

if TYPE_CHECKING:
    from condorx.language.dag.model import Dag


def _order(dag: Dag) -> tuple[list[str], dict[str, int]]:
    """The nodes that can be ordered (file order among those that are free), and how many
    parents each node still waited on at the end: more than 0 only in or below a cycle."""
    waiting = {name: len(node.parents) for name, node in dag.nodes.items()}
    ready = deque(name for name, n in waiting.items() if n == 0)
    order: list[str] = []
    while ready:
        name = ready.popleft()
        order.append(name)
        for child in dag.nodes[name].children:
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    return order, waiting


def topological(dag: Dag) -> list[str]:
    """Every node after its parents; DagError naming a node of the cycle when there is
    one."""
    order, waiting = _order(dag)
    if len(order) < len(dag.nodes):
        stuck = cycle_member(dag, waiting)
        node = dag.nodes[stuck]
        raise DagError(f"{node.source}, line {node.line}: node {stuck} is in a cycle")
    return order


def cycle_member(dag: Dag, waiting: dict[str, int] | None = None) -> str:
    """A node of a cycle, "" when the DAG has none. A node left waiting has a parent left
    waiting too, so walking up from one must come back to a node already seen: that
    node is on a cycle."""
    if waiting is None:
        waiting = _order(dag)[1]
    name = next((name for name, n in waiting.items() if n > 0), "")
    seen: set[str] = set()
    while name and name not in seen:
        seen.add(name)
        name = next(p for p in dag.nodes[name].parents if waiting[p] > 0)
    return name
