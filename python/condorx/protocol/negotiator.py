"""The negotiator's requests."""

from __future__ import annotations

from dataclasses import dataclass

from condorx.protocol.message import Message


@dataclass(frozen=True)
class Reschedule(Message):
    """Negotiate now (a schedd has new idle jobs), not at the next NEGOTIATOR_INTERVAL."""

    command = "reschedule"
