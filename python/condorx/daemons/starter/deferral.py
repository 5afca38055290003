"""Job deferral on the execute side: a job with a DeferralTime waits for it after its
files have arrived, starts at once when it is late by no more than its window, and
otherwise is sent back to be held (HoldReasonCode 20, MissedDeferredExecutionTime).

The times are the execute machine's clock, as the seed says: "Condor calculates the number
of seconds between the execution machine's current system time to the job's deferral
time"; a job late by "less than or equal to the deferral window" still starts.
"""

from __future__ import annotations

from dataclasses import dataclass

from condorx._core import deferral_on_arrival
from condorx.classad import ClassAd


@dataclass(frozen=True)
class Deferral:
    time: int
    window: int


def of(job: ClassAd) -> Deferral | None:
    """The job's deferral, when its DeferralTime is a time (the schedd evaluated it)."""
    t = job.get("DeferralTime")
    if not isinstance(t, int) or isinstance(t, bool):
        return None
    window = job.get("DeferralWindow")
    if not isinstance(window, int) or isinstance(window, bool):
        window = job.get("CronWindow")
    return Deferral(t, window if isinstance(window, int) and window > 0 else 0)


def verdict(d: Deferral, now: float) -> tuple[str, int]:
    """("wait", seconds), ("start", 0) or ("missed", seconds late): the core's rule. Whole
    seconds, rounded so that a wait never ends before the deferral time."""
    kind, seconds = deferral_on_arrival(int(now), d.time, d.window)
    return ("missed" if kind == "hold" else kind), seconds
