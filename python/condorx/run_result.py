"""How a job's run on a slot ended, as its startd reports it: decoded once, where the
reply comes off the wire, so that the queue's transitions read typed fields and nothing
else reads the reply's keys.

One of these holds (in this order of precedence): the job missed its deferral window,
the startd took it off (vacated), it could not be started (failed), or it ran to an
exit, whose attributes (ExitCode, ExitBySignal, usage, ...) are in `attrs`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from condorx import wire


@dataclass(frozen=True)
class Missed:
    """The job missed its deferral time: `late` seconds past a `window`-second window,
    or its deferral settings are `invalid` (the reason)."""

    late: int = 0
    window: int = 0
    invalid: str = ""

    def reason(self) -> str:
        if self.invalid:
            return self.invalid
        return (
            f"Job missed its deferred execution time by {self.late} seconds"
            f" (deferral window {self.window} seconds)"
        )


@dataclass(frozen=True)
class RunResult:
    attrs: dict[str, Any] = field(default_factory=dict)  # the job's exit, usage, ...
    wall: float | int | None = None  # seconds it ran
    files: dict[str, bytes] = field(default_factory=dict)  # its output, by name
    missed: Missed | None = None
    vacated: str = ""  # why the startd took it off
    failed: str = ""  # why it could not start (or its output could not be written)
    hold_code: int | None = None  # the hold a failure asks for; None: the default
    hold_subcode: int = 0
    claim_ended: bool = False  # the claim ended with the run: it takes no other job

    @classmethod
    def from_reply(cls, reply: dict[str, Any]) -> RunResult:
        """The startd's reply to `run`; a field of the wrong type is a WireError."""
        attrs = reply.get("outcome") or {}
        files = reply.get("files") or {}
        missed = reply.get("missed")
        if not isinstance(attrs, dict) or not isinstance(files, dict):
            raise wire.WireError("run reply: 'outcome' and 'files' must be maps")
        if missed is not None and not isinstance(missed, dict):
            raise wire.WireError("run reply: 'missed' must be a map")
        return cls(
            attrs={k: v for k, v in attrs.items() if isinstance(k, str) and wire.is_attr_name(k)},
            wall=_number(reply.get("wall")),
            files={str(k): v for k, v in files.items() if isinstance(v, bytes)},
            missed=None if missed is None else _missed(missed),
            vacated=str(reply.get("vacated") or ""),
            failed=str(reply.get("failed") or ""),
            hold_code=_int(reply.get("hold_code")),
            hold_subcode=_int(reply.get("hold_subcode")) or 0,
            claim_ended=bool(reply.get("claim_ended")),
        )

    def failing(self, why: str, code: int, subcode: int) -> RunResult:
        """This run, failed after all (its output could not be written): held."""
        return dataclasses.replace(self, failed=why, hold_code=code, hold_subcode=subcode)

    def summary(self) -> str:
        """How it ended, in a few words, for a log line."""
        if self.missed is not None:
            return f"missed its deferral time ({self.missed.reason()})"
        if self.vacated:
            return f"evicted ({self.vacated})"
        if self.failed:
            return f"failed ({self.failed})"
        if self.attrs.get("ExitBySignal"):
            return f"killed by signal {self.attrs.get('ExitSignal')}"
        return f"exit code {self.attrs.get('ExitCode')}"


def _missed(data: dict[str, Any]) -> Missed:
    return Missed(
        late=_int(data.get("late")) or 0,
        window=_int(data.get("window")) or 0,
        invalid=str(data.get("invalid") or ""),
    )


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _number(v: object) -> float | int | None:
    return v if isinstance(v, int | float) and not isinstance(v, bool) else None
