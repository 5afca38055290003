"""condor_now's coalescing of claims (HTCondor's COALESCE_SLOTS): a schedd that vacated
several jobs on dynamic slots of one partitionable slot gives their claims back in one
request, and gets one dynamic slot, carved for its now-job out of what they held.

The checks and their words are HTCondor's (`command_coalesce_slots`): a claim whose slot
is still busy with its last job is "not idle", which the schedd retries (BUSY); every
other failure is final (BAD_REQUEST).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.startd.driver import Driver
from condorx.daemons.startd.slots import Claim, Slot
from condorx.daemons.startd.states import Activity, State
from condorx.errors import Refusal, Refused

log = logging.getLogger("condorx.startd")


def coalesced_slots(driver: Driver, claim_ids: list[Any]) -> tuple[Slot, list[Slot]]:
    """The partitionable slot the claims' dynamic slots come from, and those slots;
    Refused (with HTCondor's reason) unless every claim may be coalesced now."""
    ids = list(dict.fromkeys(claim_ids))  # duplicates count once, as HTCondor's set
    if not ids:
        raise Refused(Refusal.BAD_REQUEST, "command ad's claim ID list empty or invalid")
    parent: Slot | None = None
    slots = []
    for claim_id in ids:
        slot = driver.table.claimed_by(claim_id)
        if slot is None:
            raise Refused(Refusal.BAD_REQUEST, "can't find slot with given claim ID")
        if slot.state != State.CLAIMED:
            raise Refused(Refusal.BAD_REQUEST, "given slot is not claimed")
        # Its last job's end may not have settled yet (or its next job is starting):
        # the schedd asks again.
        if slot.activity != Activity.IDLE or slot.flags.vacate_requested or slot.flags.starting:
            raise Refused(Refusal.BUSY, "given slot is not idle")
        if slot.kind != "Dynamic" or slot.parent is None:
            raise Refused(Refusal.BAD_REQUEST, "given slot is not dynamic")
        if parent is None:
            parent = slot.parent
        elif slot.parent is not parent:
            raise Refused(Refusal.BAD_REQUEST, "all slots must have the same parent")
        slots.append(slot)
    assert parent is not None
    return parent, slots


def coalesce(driver: Driver, claim_ids: list[Any], job: ClassAd, schedd: str, user: str) -> Slot:
    """End the claims, their resources back in their partitionable slot, and carve from
    it a dynamic slot for `job` (its requests evaluated against the slot as it is then),
    under a new claim of `user`'s for `schedd`: the slot returned, Unclaimed."""
    parent, slots = coalesced_slots(driver, claim_ids)
    for slot in slots:
        log.info("coalescing %s (claim %s)", slot.name, slot.claim.id[:8] if slot.claim else "")
        driver.end_claim(slot)
    view = driver.table.view(parent)
    request = {
        name.lower(): job.eval(f"Request{name}", view)
        for name in ("Cpus", "Memory", "Disk", *parent.custom)
    }
    carved = driver.carve(parent, {k: v for k, v in request.items() if isinstance(v, int | float)})
    claim = Claim(id=secrets.token_hex(16), schedd=schedd, user=user, matched_at=driver.now())
    driver.table.set_claim(carved, claim)
    driver.touch(parent)
    log.info("coalesced %d slots into %s", len(slots), carved.name)
    return carved
