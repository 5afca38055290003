"""What a cycle shared by group did, in the NegotiatorLog, in HTCondor's words where
admins grep for them: each group's figures, then each turn in the order the groups
negotiated ("Group b - BEGIN NEGOTIATION", then "Negotiating with b.user@domain at
<schedd>" for each of its submitters; the root's last turn, when groups regroup, with
the regrouping groups' submitters too)."""

from __future__ import annotations

import logging

from condorx.daemons.negotiator.groups import ROOT, PoolGroups
from condorx.language.negotiation import Submitter

log = logging.getLogger("condorx.negotiator")


def log_cycle(groups: PoolGroups, submitters: list[Submitter], homes: dict[int, str]) -> None:
    core = groups.core
    for warning in core.last_warnings():
        log.warning("group quotas: %s", warning)
    for name, share in core.last_shares():
        log.info(
            "group quotas: %s quota %g requested %g allocated %g usage %g",
            name,
            share["quota"],
            share["requested"],
            share["allocated"],
            share["usage"],
        )
    members: dict[str, list[Submitter]] = {}
    for sub in submitters:
        members.setdefault(core.assigned(sub.name).lower(), []).append(sub)
    regrouping = [g for g, policy in groups.surplus.items() if policy == "regroup" and g != ROOT]
    for round_, group, regrouped in core.last_turns():
        log.info("group quotas: round %d: Group %s - BEGIN NEGOTIATION", round_, group)
        turn = list(members.get(group.lower(), []))
        if regrouped:
            turn += [s for g in regrouping for s in members.get(g, [])]
        for sub in turn:
            log.info("Negotiating with %s at %s", sub.name, homes.get(id(sub), "?"))
