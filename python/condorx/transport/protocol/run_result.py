"""How a job's run on a slot ended, as its startd reports it: decoded once, where the
reply comes off the wire, so that the queue's transitions read typed fields and nothing
else reads the reply's keys.

One of these holds (in this order of precedence): the job missed its deferral window,
the startd took it off (vacated), it could not be started (failed), or it ran to an
exit, whose attributes (ExitCode, ExitBySignal, usage, ...) are in `attrs`.
"""

from __future__ import annotations

from condorx.record import field, record, replace
from condorx.transport import wire
from condorx.transport.protocol.startd import RunEnded

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
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


@record(frozen=True)
class RunResult:
    attrs: dict[str, Any] = field(default_factory=dict)  # the job's exit, usage, ...
    wall: float | None = None  # seconds it ran
    files: dict[str, bytes] = field(default_factory=dict)  # its output, by name
    missed: Missed | None = None
    vacated: str = ""  # why the startd took it off
    failed: str = ""  # why it could not start (or its output could not be written)
    hold_code: int | None = None  # the hold a failure asks for; None: the default
    hold_subcode: int = 0
    claim_ended: bool = False  # the claim ended with the run: it takes no other job

    @classmethod
    def of(cls, ended: RunEnded) -> RunResult:
        """The startd's reply to `run`, as the queue reads it."""
        return cls(
            attrs={
                k: v
                for k, v in (ended.outcome or {}).items()
                if isinstance(k, str) and wire.is_attr_name(k)
            },
            wall=ended.wall,
            files={str(k): v for k, v in (ended.files or {}).items() if isinstance(v, bytes)},
            missed=None if ended.missed is None else _missed(ended.missed),
            vacated=ended.vacated or "",
            failed=ended.failed or "",
            hold_code=ended.hold_code,
            hold_subcode=ended.hold_subcode or 0,
            claim_ended=ended.claim_ended,
        )

    def failing(self, why: str, code: int, subcode: int) -> RunResult:
        """This run, failed after all (its output could not be written): held."""
        return replace(self, failed=why, hold_code=code, hold_subcode=subcode)

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
