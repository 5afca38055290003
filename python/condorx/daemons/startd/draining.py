"""Draining a startd (condor_drain): its slots take no new jobs, its running jobs leave as
the request says, and once every slot is Drained it does what the request asks next.

How fast: `graceful` lets each job retire (MaxJobRetirementTime, then vacate); `quick`
vacates at once (the job's soft kill and MaxVacateTime); `fast` kills at once. On
completion: `nothing` (the slots stay Drained until condor_drain -cancel), `resume` (they
take jobs again), `exit` (the startd exits and asks its master not to restart it), or
`restart` and `reconfig` (it exits and asks its master to start it again at once: a
condorx daemon reads its configuration anew by being restarted, so the two are one).

While draining, every slot's START is false, as HTCondor's; a graceful drain's `start`
(condor_drain -start) is its START instead until the jobs the drain found are gone. The
jobs it lets in have no retirement time: once only they are left (HTCondor's "final
draining", which comes when the last job the drain found ends), START is false again and
they are vacated at once.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from condorx.classad import ExprTree
from condorx.errors import Refusal, Refused

SPEEDS = ("graceful", "quick", "fast")
COMPLETIONS = ("nothing", "resume", "exit", "restart", "reconfig")
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
    start: str | None = None  # the slots' START until the final draining
    final: bool = False  # only jobs the drain let in are left: they go too
    found_jobs: bool = False  # there were jobs when it began (else no final draining)

    @classmethod
    def asked(
        cls, how: str, on_completion: str, reason: str, now: float, start: str | None = None
    ) -> Drain:
        if how not in SPEEDS:
            raise Refused(Refusal.BAD_REQUEST, f"drain: how must be one of {', '.join(SPEEDS)}")
        if on_completion not in COMPLETIONS:
            raise Refused(
                Refusal.BAD_REQUEST,
                f"drain: on completion condorx can {', '.join(COMPLETIONS)}, not {on_completion}",
            )
        if start is not None:
            try:
                ExprTree(start)
            except ValueError as e:
                raise Refused(Refusal.BAD_REQUEST, f"drain: -start {start!r}: {e}") from None
        # As HTCondor's: only a graceful drain waits for jobs long enough to take others.
        return cls(
            how, on_completion, reason, started=now, start=start if how == "graceful" else None
        )

    def takes_jobs(self) -> bool:
        """Whether a drained slot may be claimed now (by the drain's START)."""
        return self.start is not None and not self.final

    def start_text(self) -> str:
        """Every slot's START while the startd drains."""
        return self.start if self.takes_jobs() and self.start else "false"

    def ad(self) -> dict[str, object]:
        """What every slot's ad says while the startd drains (and `start_text`)."""
        return {
            "Draining": True,
            "DrainReason": self.reason,
            "DrainingRequestId": self.request_id,
            "DrainingStartTime": int(self.started),
        }


def refused(code: int, message: str) -> Refused:
    """A refusal that carries HTCondor's error code for condor_drain to print."""
    return Refused(Refusal.DRAIN, f"error code {code}: {message}")
