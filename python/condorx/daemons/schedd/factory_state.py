"""What a job factory's cluster ad says about it (HTCondor's attribute names): how many
procs it makes in all, which comes next, how many may be in the queue at once, and
whether it was stopped. The queue reads these to keep a factory's cluster ad while its
jobs are still to come, even when none of them is in the queue."""

from __future__ import annotations

from typing import Any

NEXT = "JobMaterializeNextProcId"
TOTAL = "TotalSubmitProcs"
LIMIT = "JobMaterializeLimit"  # jobs of the cluster in the queue at once (max_materialize)
MAX_IDLE = "JobMaterializeMaxIdle"  # jobs not running at once (max_idle)
PAUSED = "JobMaterializePaused"
PAUSE_REASON = "JobMaterializePauseReason"
DIGEST_FILE = "JobMaterializeDigestFile"  # HTCondor's clients: the submit digest
ITEMS_FILE = "JobMaterializeItemsFile"  # ... and its `queue ... from` rows
ROWS_FILE = "JobMaterializeRowsFile"  # condorx's condor_submit: every proc's own attributes

# JobMaterializePaused, as HTCondor numbers its modes.
INVALID = -1  # a row could not be made into a job
RUNNING = 0
HELD = 1
REMOVED = 3  # the cluster was removed: no more jobs come


def _int(ad: Any, name: str) -> int | None:
    value = ad.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def is_factory(cluster_ad: Any) -> bool:
    return _int(cluster_ad, NEXT) is not None


def pending(cluster_ad: Any) -> bool:
    """Whether the factory has jobs still to make (so its cluster stays, empty or not)."""
    nxt, total = _int(cluster_ad, NEXT), _int(cluster_ad, TOTAL)
    if nxt is None or total is None:
        return False
    return nxt < total and _int(cluster_ad, PAUSED) != REMOVED
