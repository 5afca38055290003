"""What a pool with accounting groups tells its policy expressions, as HTCondor's
matchmaker adds it: each job's ad gets its submitter's usage and group (SubmitterGroup,
SubmitterGroupQuota, SubmitterGroupResourcesInUse, SubmitterUserResourcesInUse), and
each claimed slot's ad its user's (RemoteGroup, RemoteGroupQuota,
RemoteGroupResourcesInUse, RemoteUserResourcesInUse). With them PREEMPTION_REQUIREMENTS
can let a group under its quota take slots from one over its own, the manual's recipe.

Usage is in weighted slots, as the cycle began; a group's is what its own members hold
(HTCondor's group record), its quota what the tree assigns it in this pool."""

from __future__ import annotations

from condorx.classad import ClassAd
from condorx.daemons.negotiator.group_accounts import GroupAccounts
from condorx.daemons.negotiator.pool_usage import charged_name
from condorx.language.negotiation import Submitter


class GroupAttrs:
    def __init__(self, accounts: GroupAccounts, quotas: dict[str, float], held: dict[str, float]):
        self.accounts = accounts
        self.quotas = {name.lower(): q for name, q in quotas.items()}
        # Each name's and each group's weighted usage, in one map (as the accountant's).
        self.used = accounts.charged(held)

    def _facts(self, name: str, prefix: str) -> dict[str, object]:
        group = self.accounts.group_of(name)
        return {
            f"{prefix}UserResourcesInUse": self.used.get(name, 0.0),
            f"{prefix}Group": group,
            f"{prefix}GroupQuota": self.quotas.get(group.lower(), 0.0),
            f"{prefix}GroupResourcesInUse": self.used.get(group, 0.0),
        }

    def stamp_jobs(self, submitters: list[Submitter]) -> None:
        """Each submitter's jobs (one ad stands for its autocluster's jobs: set once)."""
        for sub in submitters:
            facts = self._facts(sub.name.rsplit("@", 1)[0], "Submitter")
            seen: set[int] = set()
            for job in sub.jobs:
                if id(job) not in seen:
                    seen.add(id(job))
                    job.update(facts)

    def stamp_slots(self, slots: list[ClassAd]) -> None:
        """Each claimed slot, by the name its claim is charged to."""
        for slot in slots:
            if slot.get("State") != "Claimed":
                continue
            name = charged_name(slot)
            if name is not None:
                slot.update(self._facts(name, "Remote"))
