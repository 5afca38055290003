"""A running job's lease: how long the schedd waits for a word from the job's startd
before it takes the run for lost, and how often the startd speaks so that it never does.

The startd sends an `alive` frame every STARTER_HEARTBEAT seconds (300 by default, as
HTCondor's ALIVE_INTERVAL), but at least three times within the job's lease, so a job
whose JobLeaseDuration is short is still never taken for lost while it runs. A schedd or
startd that dies is noticed at once, from its connection's end; the lease is for a host
that falls silent."""

from __future__ import annotations

from condorx.classad import ClassAd

DEFAULT_LEASE = 2400  # HTCondor's JobLeaseDuration when the job names none
DEFAULT_HEARTBEAT = 300


def lease(job: ClassAd) -> int:
    """The job's lease, in seconds."""
    value = job.get("JobLeaseDuration")
    return value if isinstance(value, int) and value > 0 else DEFAULT_LEASE


def heartbeat(job: ClassAd, every: float) -> float:
    """Seconds between the `alive` frames of the job's run: `every`
    (STARTER_HEARTBEAT), or less when the job's lease is short."""
    return max(1.0, min(every, lease(job) / 3))
