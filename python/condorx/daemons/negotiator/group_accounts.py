"""The accountant's records of accounting groups, as HTCondor's Accountant keeps them
beside its users': each group (the root `<none>` too) has a record of its own, charged
for what its members hold, with a priority that decays as theirs do; a new record in a
group with GROUP_PRIO_FACTOR_<g> starts at that factor; and a report tells each record's
group, and each group's quota, surplus policy and demand as the last cycle left them
(the attributes condor_userprio reads: IsAccountingGroup, AccountingGroup,
EffectiveQuota, ConfigQuota, SubtreeQuota, GroupSortKey, SurplusPolicy, Requested).

The records are named without the domain, as condorx's accountant keeps every name; a
user's group is found from `name@UID_DOMAIN`, as the groups' tree assigns submitters.
"""

from __future__ import annotations

from typing import Any

from condorx.daemons.negotiator.groups import ROOT, PoolGroups
from condorx.language.negotiation import Accountant


class GroupAccounts:
    def __init__(self, groups: PoolGroups, domain: str) -> None:
        self.groups = groups
        self.domain = domain
        self._names = {n.lower(): n for n in groups.core.names}
        # Names seen before: their group (the tree's answer does not change) and whether
        # their record was primed. A cycle charges every submitter in the pool.
        self._group: dict[str, str] = {}
        self._primed: set[str] = set()

    def is_group(self, name: str) -> bool:
        return name.lower() in self._names

    def group_of(self, name: str) -> str:
        """A user record's group; a group's own record belongs to its parent (the root's
        to itself), as HTCondor's report gives it."""
        if self.is_group(name):
            full = self._names[name.lower()]
            return full.rsplit(".", 1)[0] if "." in full else ROOT
        group = self._group.get(name)
        if group is None:
            group = self._group[name] = self.groups.core.assigned(f"{name}@{self.domain}")
        return group

    def charged(self, held: dict[str, float]) -> dict[str, float]:
        """What each record is charged for now: each name what it holds, and each group
        what its members hold (HTCondor's AddMatch charges both)."""
        out = dict(held)
        for name, used in held.items():
            if not self.is_group(name):
                group = self.group_of(name)
                out[group] = out.get(group, 0.0) + used
        return out

    def prime_groups(self, accountant: Accountant) -> None:
        """Make sure every group has a record (HTCondor makes them at start-up)."""
        for name in self._names.values():
            if not accountant.knows(name):
                factor = self.groups.prio_factor.get(name.lower())
                accountant.set_factor(name, factor or accountant.factor(name))

    def prime(self, accountant: Accountant, name: str) -> None:
        """A new user record starts at its group's GROUP_PRIO_FACTOR, where one is set
        (HTCondor sets a record's factor when it is first read)."""
        if name in self._primed:
            return
        self._primed.add(name)
        if accountant.knows(name) or self.is_group(name):
            return
        factor = self.groups.prio_factor.get(self.group_of(name).lower())
        if factor is not None:
            accountant.set_factor(name, factor)

    def forget(self, name: str) -> None:
        """The record was deleted (condor_userprio -delete): a new one is primed anew."""
        self._primed.discard(name)

    def annotate(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`records` with each one's group, and each group's figures from the last cycle."""
        shares = {name.lower(): share for name, share in self.groups.core.last_shares()}
        for rec in records:
            name = str(rec.get("Name", ""))
            group = self.is_group(name)
            rec["IsAccountingGroup"] = group
            rec["AccountingGroup"] = self.group_of(name)
            if not group:
                continue
            key = name.lower()
            share = shares.get(key, {})
            rec["EffectiveQuota"] = share.get("quota", 0.0)
            rec["SubtreeQuota"] = share.get("subtree_quota", 0.0)
            rec["GroupSortKey"] = share.get("sort_key", 0.0)
            rec["Requested"] = share.get("requested", 0.0)
            rec["ConfigQuota"] = self.groups.config_quota.get(key, 0.0)
            rec["SurplusPolicy"] = self.groups.surplus.get(key, "no")
        return records
