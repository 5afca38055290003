"""Draining a startd (condor_drain): its slots take no new jobs, its running jobs leave as
the request says, and once every slot is Drained it does what the request asks next.

How fast: `graceful` lets each job retire (MaxJobRetirementTime, then vacate); `quick`
vacates at once (the job's soft kill and MaxVacateTime); `fast` kills at once. On
completion: `nothing` (the slots stay Drained until condor_drain -cancel), `resume` (they
take jobs again), or `exit` (the startd exits and asks its master not to restart it).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from condorx.errors import Refusal, Refused

SPEEDS = ("graceful", "quick", "fast")
COMPLETIONS = ("nothing", "resume", "exit")
# HTCondor's error codes, which condor_drain prints with the message.
ALREADY = 10001
NO_SUCH_REQUEST = 10002
CHECK_FAILED = 10003


@dataclass
class Drain:
    how: str
    on_completion: str
    reason: str
    request_id: str = field(default_factory=lambda: secrets.token_hex(8))
    started: float = 0.0
    completed: bool = False

    @classmethod
    def asked(cls, how: str, on_completion: str, reason: str, now: float) -> Drain:
        if how not in SPEEDS:
            raise Refused(Refusal.BAD_REQUEST, f"drain: how must be one of {', '.join(SPEEDS)}")
        if on_completion not in COMPLETIONS:
            raise Refused(
                Refusal.BAD_REQUEST,
                f"drain: on completion condorx can {', '.join(COMPLETIONS)}, not {on_completion}",
            )
        return cls(how, on_completion, reason, started=now)

    def ad(self) -> dict[str, object]:
        """What every slot's ad says while the startd drains."""
        return {
            "Draining": True,
            "DrainReason": self.reason,
            "DrainingRequestId": self.request_id,
            "DrainingStartTime": int(self.started),
        }


def refused(code: int, message: str) -> Refused:
    """A refusal that carries HTCondor's error code for condor_drain to print."""
    return Refused(Refusal.DRAIN, f"error code {code}: {message}")
