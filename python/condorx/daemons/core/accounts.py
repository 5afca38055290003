"""The name a job's use of the pool is charged to: its AccountingGroup
(`group.user`, as condor_submit's accounting_group and accounting_group_user make it)
or else its Owner. The negotiator shares the pool among these names, the accountant
keeps their priorities, a slot shows the one its claim runs for, and a schedd reuses a
claim only for jobs of the same name (HTCondor's submitter names, without the domain)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from condorx.classad import ClassAd


def accounting_name(ad: ClassAd | Mapping[str, Any] | None) -> str:
    """The job's (or a claimed slot's) accounting name; "" when it has neither."""
    if ad is None:
        return ""
    group = ad.get("AccountingGroup")
    if isinstance(group, str) and group:
        return group
    owner = ad.get("Owner")
    return owner if isinstance(owner, str) else ""
