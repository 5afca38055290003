"""The accounting groups' tree as condor_userprio reads it from the negotiator's report,
which holds a record per group besides its users' (each group's named without a
domain), each record naming its group in AccountingGroup (a group its parent, the root
`<none>` itself): the records in the order of HTCondor's own report, and -grouprollup's
sums up the tree.
"""

from __future__ import annotations

from typing import Any

ROOT = "<none>"


def has_groups(records: list[dict[str, Any]]) -> bool:
    """Whether the negotiator reported accounting groups (it marks every record then)."""
    return any("IsAccountingGroup" in r for r in records)


def tree_order(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The groups breadth first from the root (each one's subgroups by name), then the
    users as given: the order of HTCondor's GET_PRIORITY report."""
    groups = [r for r in records if r.get("IsAccountingGroup")]
    children: dict[str, list[dict[str, Any]]] = {}
    for g in groups:
        parent = str(g.get("AccountingGroup") or ROOT)
        if parent != g["Name"]:
            children.setdefault(parent, []).append(g)
    roots = [g for g in groups if str(g.get("AccountingGroup") or ROOT) == g["Name"]]
    ordered: list[dict[str, Any]] = []
    queue = sorted(roots, key=lambda g: g["Name"])
    while queue:
        g = queue.pop(0)
        ordered.append(g)
        queue += sorted(children.get(g["Name"], []), key=lambda c: c["Name"])
    seen = {id(g) for g in ordered}
    ordered += sorted((g for g in groups if id(g) not in seen), key=lambda g: g["Name"])
    return ordered + [r for r in records if not r.get("IsAccountingGroup")]


def rollup(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """-grouprollup: each group's usage the sum of its users' and its subgroups' (the
    earliest begin, the latest last usage), and no priority of its own, as HTCondor's
    GET_PRIORITY_ROLLUP reports them."""
    out = [dict(r) for r in records]
    groups = {r["Name"]: r for r in out if r.get("IsAccountingGroup")}
    members: dict[str, list[dict[str, Any]]] = {}
    for r in out:
        parent = str(r.get("AccountingGroup") or ROOT)
        if parent != r["Name"]:
            members.setdefault(parent, []).append(r)
    done: set[str] = set()

    def total(name: str) -> dict[str, Any]:
        g = groups[name]
        if name in done:
            return g
        done.add(name)  # before the members: a loop in the links ends here
        figures = [
            total(m["Name"]) if m.get("IsAccountingGroup") else m for m in members.get(name, [])
        ]
        for attr in ("ResourcesUsed", "WeightedResourcesUsed", "WeightedAccumulatedUsage"):
            g[attr] = sum(float(m.get(attr) or 0) for m in figures)
        begins = [int(m.get("BeginUsageTime") or 0) for m in figures]
        g["BeginUsageTime"] = min((b for b in begins if b > 0), default=0)
        g["LastUsageTime"] = max([int(m.get("LastUsageTime") or 0) for m in figures], default=0)
        g["Priority"] = g["RealPriority"] = 0.0
        return g

    for name in groups:
        total(name)
    return out
