"""How the ledger's commits go: how many, how large, how long each took, and how long a
change waited for its commit, reported to the SchedLog once a period (a minute).

A change's wait is what a job's claim waits between one run and the next, and what
condor_submit waits for its acknowledgement: the figure an administrator of a busy
schedd needs, and one no other log line gives.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class CommitAccount:
    period: float = 60.0
    started: float = field(default_factory=time.monotonic)
    commits: int = 0
    changes: int = 0
    busy: float = 0.0  # seconds spent committing
    longest: float = 0.0
    waited: float = 0.0  # the changes' waits, summed

    def add(self, changes: int, took: float, waited: float) -> None:
        """One commit of `changes` changes that took `took` seconds, which waited
        `waited` seconds in all from being asked to being committed."""
        self.commits += 1
        self.changes += changes
        self.busy += took
        self.longest = max(self.longest, took)
        self.waited += waited

    def line(self) -> str:
        commits, changes = max(self.commits, 1), max(self.changes, 1)
        return (
            f"queue commits in {time.monotonic() - self.started:.0f} s: {self.commits}, "
            f"{self.changes / commits:.1f} changes each, {1000 * self.busy / commits:.1f} ms "
            f"each (longest {1000 * self.longest:.1f} ms); a change waited "
            f"{1000 * self.waited / changes:.1f} ms for its commit"
        )

    def due(self) -> bool:
        """A period has passed since the account began, with commits to report."""
        return self.commits > 0 and time.monotonic() - self.started >= self.period
