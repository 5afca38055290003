"""The order of a DAG's nodes: parents before children, and no cycle."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from condorx.language.dag.errors import DagError

if TYPE_CHECKING:
    from condorx.language.dag.model import Dag


def topological(dag: Dag) -> list[str]:
    """Every node after its parents (file order among those that are free); DagError
    naming a node of the cycle when there is one."""
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
    if len(order) < len(dag.nodes):
        stuck = next(name for name, n in waiting.items() if n > 0)
        node = dag.nodes[stuck]
        raise DagError(f"{node.source}, line {node.line}: node {stuck} is in a cycle")
    return order
