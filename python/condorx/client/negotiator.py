"""Talking to a negotiator."""

from __future__ import annotations

from condorx.client.connection import Address, Credentials, call
from condorx.protocol.negotiator import Reschedule


async def reschedule(address: Address, creds: Credentials) -> None:
    """Ask for a negotiation cycle now (condor_reschedule)."""
    await call(address, creds, Reschedule())
