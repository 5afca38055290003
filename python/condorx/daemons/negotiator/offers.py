"""One match as the negotiator hands it out: the claim id it goes under (the one its slot
offers, or a new one its startd is told of first), the dynamic slot to carve, the job's
own concurrency limits, and the slot held back from the next cycles until its startd
advertises it again (`handed_out`)."""

from __future__ import annotations

import secrets

from condorx.classad import ClassAd
from condorx.daemons.negotiator.handed_out import HandedOut
from condorx.daemons.negotiator.handout import Offer
from condorx.daemons.negotiator.limits import PoolLimits
from condorx.daemons.negotiator.resource_quotas import own_limits
from condorx.language import resources
from condorx.transport.protocol.startd import Match


def offer(
    handed_out: HandedOut,
    pool_limits: PoolLimits,
    offered_ids: dict[str, str],
    job: ClassAd,
    slot: ClassAd,
    schedd: str,
    submitter: str,
    dynamic: ClassAd | None,
    preempts: str | None = None,
    limits: str | None = None,
) -> Offer:
    """One match as it is handed out, under the claim id its slot offers, or a new
    one its startd is told of first (a preempting match, a slot that offers none).
    The slot is held from now on: taken or not, it is not offered again until its
    startd advertises."""
    slot_name = str(slot.get("Name"))
    offered = None if preempts else offered_ids.get(slot_name)
    account = submitter.rsplit("@", 1)[0]  # the accounting name, as the slot shows it
    # A preempted slot is held until its ad shows the incoming claim; a static slot
    # claimed by its offer, until claimed; a partitionable one, until its ad shows
    # every carving of the cycle.
    carved = dynamic.get("Cpus") if dynamic is not None else None
    if preempts:
        handed_out.hold(slot, None, incoming=account)
    elif isinstance(carved, int):
        handed_out.carve(slot, carved)
    else:
        handed_out.hold(slot, offered if dynamic is None else None)
    request = None
    if dynamic is not None:
        request = {k.lower(): dynamic.get(k) for k in ("Cpus", "Memory", "Disk")}
        # And the custom resources carved (GPUs): the startd assigns which ones.
        for name in resources.custom(slot):
            request[name] = dynamic.get(name)
    user = str(job.get("Owner"))
    # preempts: "rank" or "priority" when the slot's job must go.
    claim_id = offered or secrets.token_hex(16)
    mine = own_limits(limits)  # the per-resource quotas' stay here
    match = Match(slot_name, claim_id, schedd, user, preempts or None, request, mine, account)
    pool_limits.matched(slot_name, limits)
    job_id = f"{job.get('ClusterId')}.{job.get('ProcId')}"
    fs_domain = slot.get("FileSystemDomain")
    return Offer(
        match,
        str(slot.get("MyAddress")),
        schedd,
        submitter,
        job_id,
        inform=offered is None,
        fs_domain=fs_domain if isinstance(fs_domain, str) else "",
    )
