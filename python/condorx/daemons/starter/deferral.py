"""Job deferral on the execute side: a job with a DeferralTime waits for it after its
files have arrived, starts at once when it is late by no more than its window, and
otherwise is sent back to be held (HoldReasonCode 20, MissedDeferredExecutionTime).

DeferralTime and the window are evaluated here, against the execute machine's clock, as
the seeds say: "Condor calculates the number of seconds between the execution machine's
current system time to the job's deferral time", and `DeferralTime = (CurrentTime - 60)`
"always evaluates to 60 seconds in the past from the execution machine's current system
time". So `CurrentTime + 60` always waits 60 s after the job arrives, however long the
match took. A job late by "less than or equal to the deferral window" still starts.
"""

from __future__ import annotations

from dataclasses import dataclass

from condorx.classad import ClassAd
from condorx.language.cron import deferral_on_arrival


@dataclass(frozen=True)
class Deferral:
    time: int
    window: int


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and abs(value) < 2**62:  # not NaN
        return int(value)
    return None


def of(job: ClassAd, now: float) -> Deferral | str | None:
    """The job's deferral evaluated at `now`; None when it has none; why, when its
    DeferralTime is not a time (HTCondor's starter refuses it the same way)."""
    if job.get("DeferralTime") is None:
        return None
    scope = job.copy()
    scope["CurrentTime"] = int(now)
    t = _int(scope.eval("DeferralTime"))
    if t is None or t <= 0:
        shown = t if t is not None else job.get("DeferralTime")
        return f"Invalid deferred execution time {shown!s}: it is not a time after 1970"
    window = None
    for name in ("DeferralWindow", "CronWindow"):
        if job.get(name) is not None:
            window = _int(scope.eval(name))
            break
    return Deferral(t, window if window is not None and window > 0 else 0)


def verdict(d: Deferral, now: float) -> tuple[str, int]:
    """("wait", seconds), ("start", 0) or ("missed", seconds late): the core's rule. Whole
    seconds, rounded so that a wait never ends before the deferral time."""
    kind, seconds = deferral_on_arrival(int(now), d.time, d.window)
    return ("missed" if kind == "hold" else kind), seconds
