"""Talking to a startd as the schedd's shadows do: claim a slot, run jobs on the claim
one after another, release it; and, on a connection of their own, suspend, continue or
stop the job a claim runs.

A claim keeps one connection for its life. A job's `run` stays open while the job runs:
the startd's frames on it (the job started, heartbeats, the policy suspended it) are its
lease, and the last one says how the run ended (`RunResult`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import trio

from condorx import wire
from condorx.classad import ClassAd
from condorx.client.connection import Address, Credentials, connect
from condorx.run_result import RunResult

# A frame of a running job: {"started": pid, "host": ...}, {"alive": ...}, {"suspended": ...}.
Notice = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class ClaimRequest:
    """What a schedd says when it takes up a claim the negotiator made for it."""

    claim_id: str
    slot: str
    user: str
    schedd: str  # the schedd's address
    client_machine: str  # its name


class Claim:
    """A claimed slot, on its connection."""

    def __init__(self, ch: wire.Channel, claim_id: str, slot_ad: ClassAd) -> None:
        self.ch = ch
        self.id = claim_id
        self.slot_ad = slot_ad

    async def run(
        self, job: ClassAd, files: dict[str, bytes] | None, lease: int, notice: Notice
    ) -> RunResult:
        """Run `job` on the slot; returns how it ended. Each frame while it runs goes to
        `notice`; no frame for `lease` seconds is trio.TooSlowError (the run is lost)."""
        await self.ch.send(
            {
                "cmd": "run",
                "claim_id": self.id,
                "job": wire.ad_to_wire(job.flatten()),
                "files": files,
            }
        )
        while True:
            with trio.fail_after(lease):
                reply = await self.ch.receive()
            if isinstance(reply, dict) and "more" in reply:
                if isinstance(reply["more"], dict):
                    await notice(reply["more"])
                continue
            return RunResult.from_reply(wire.check(reply))

    async def release(self) -> None:
        """Give the slot back: the claim is over."""
        await self.ch.request({"cmd": "release", "claim_id": self.id})


class StartdClient:
    def __init__(self, creds: Credentials) -> None:
        self.creds = creds

    @asynccontextmanager
    async def claim(self, startd: Address, req: ClaimRequest) -> AsyncIterator[Claim]:
        """Take up a claim; the connection closes when the block ends."""
        ch = await connect(startd, self.creds)
        try:
            reply = await ch.request(
                {
                    "cmd": "claim",
                    "claim_id": req.claim_id,
                    "slot": req.slot,
                    "user": req.user,
                    "schedd": req.schedd,
                    "client_machine": req.client_machine,
                }
            )
            slot_ad = wire.ad_from_wire(reply.get("ad") or {}, "slot ad")
            yield Claim(ch, req.claim_id, slot_ad)
        finally:
            await ch.aclose()

    async def suspend(self, startd: Address, claim_id: str) -> None:
        await self._call(startd, {"cmd": "suspend", "claim_id": claim_id})

    async def resume(self, startd: Address, claim_id: str) -> None:
        await self._call(startd, {"cmd": "continue", "claim_id": claim_id})

    async def deactivate(self, startd: Address, claim_id: str, why: str, job: str) -> None:
        """Stop the claim's job `job` (held or removed: `why`); the claim goes on. A claim
        that has moved on to another job keeps it."""
        req = {"cmd": "deactivate", "claim_id": claim_id, "why": why, "job": job}
        await self._call(startd, req)

    async def _call(self, startd: Address, req: dict[str, Any]) -> dict[str, Any]:
        ch = await connect(startd, self.creds)
        try:
            return await ch.request(req)
        finally:
            await ch.aclose()
