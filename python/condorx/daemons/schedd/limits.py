"""The schedd's limits on what its queue takes, as HTCondor's qmgmt applies them to a
submission (NewCluster, NewProc): the whole submission is refused, with HTCondor's
words, when its procs would take

- MAX_JOBS_PER_SUBMISSION: more procs than one submission may have;
- MAX_JOBS_PER_OWNER: the owner's jobs in the queue (any status) above the limit;
- MAX_JOBS_SUBMITTED: the queue's jobs above the limit.

What runs at once is limited where jobs start: MAX_JOBS_RUNNING (jobs on slots, their
shadows) in `shadow`, MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER in `local_jobs`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from condorx.errors import Refusal, Refused
from condorx.language.config import Config

log = logging.getLogger("condorx.schedd")

_WOULD_EXCEED = "Failed to create proc\nNumber of submitted jobs would exceed {}"


@dataclass(frozen=True)
class QueueLimits:
    per_submission: int
    per_owner: int
    submitted: int

    @classmethod
    def from_config(cls, cfg: Config) -> QueueLimits:
        return cls(
            per_submission=cfg.get_int("MAX_JOBS_PER_SUBMISSION", 20_000),
            per_owner=cfg.get_int("MAX_JOBS_PER_OWNER", 100_000),
            submitted=cfg.get_int("MAX_JOBS_SUBMITTED", 2**31 - 1),
        )

    def check(self, owner: str, procs: int, owned: int, total: int) -> None:
        """Refuse `procs` new jobs of `owner`, who has `owned` jobs in a queue of
        `total`, when they break a limit (Refusal.LIMIT, HTCondor's message)."""
        if total >= self.submitted:
            log.info(
                "NewCluster(): MAX_JOBS_SUBMITTED exceeded, submit failed. "
                "Current total is %d. Limit is %d",
                total,
                self.submitted,
            )
            raise Refused(
                Refusal.LIMIT,
                f"MAX_JOBS_SUBMITTED exceeded. Current={total}, Limit={self.submitted}\n"
                "Number of submitted jobs would exceed MAX_JOBS_SUBMITTED",
            )
        for knob, now, limit in (
            ("MAX_JOBS_SUBMITTED", total, self.submitted),
            ("MAX_JOBS_PER_OWNER", owned, self.per_owner),
            ("MAX_JOBS_PER_SUBMISSION", 0, self.per_submission),
        ):
            if now + procs > limit:
                log.info(
                    "NewProc(): %s exceeded for %s, submit failed.  Current total is %d."
                    "  Limit is %d.",
                    knob,
                    owner,
                    now + procs,
                    limit,
                )
                raise Refused(Refusal.LIMIT, _WOULD_EXCEED.format(knob))
