"""FLOCK_TO: how far down its list of other pools each submitter reaches, as HTCondor's
schedd decides it (schedd.cpp: negotiationFinished, the flock levels of count_jobs and
flockCommunicationCheck).

A submitter's flock level is how many pools of FLOCK_COLLECTOR_HOSTS its idle jobs are
offered to (0: the local pool alone; MIN_FLOCK_LEVEL at first). It goes up by
FLOCK_INCREMENT when the pool at its level negotiated with it and left it unsatisfied,
when no negotiator has served it for two SCHEDD_INTERVALs, or when the pool at its level
cannot be reached; and back down to a pool that satisfied it. The times are the
caller's (trio's clock), so a test drives the rules on a MockClock.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from condorx.language.config import Config

log = logging.getLogger("condorx.schedd")

DEFAULT_PORT = 9618  # a central manager named without a port is at HTCondor's


@dataclass
class Reach:
    """One submitter's flock level, the level its ads last went out with, and when a
    negotiator it waits on last served it (or it had nothing idle)."""

    level: int
    old: int
    served: float


def hosts(text: str | None) -> list[str]:
    """A FLOCK_* list's central managers, each as host:port."""
    out = []
    for word in (text or "").replace(",", " ").split():
        word = word.strip("<>").partition("?")[0]
        out.append(word if word.rpartition(":")[2].isdigit() else f"{word}:{DEFAULT_PORT}")
    return out


class Flocking:
    def __init__(self, cfg: Config) -> None:
        flock_to = cfg.get("FLOCK_TO")
        collectors = hosts(cfg.get("FLOCK_COLLECTOR_HOSTS") or flock_to)
        negotiators = hosts(cfg.get("FLOCK_NEGOTIATOR_HOSTS") or flock_to)
        if len(collectors) != len(negotiators):
            log.warning(
                "FLOCK_COLLECTOR_HOSTS and FLOCK_NEGOTIATOR_HOSTS lists are not the same "
                "size. Flocking disabled."
            )
            collectors = []
        self.pools = collectors
        self.max_level = len(collectors)
        self.min_level = min(max(0, cfg.get_int("MIN_FLOCK_LEVEL", 0)), self.max_level)
        self.increment = max(1, cfg.get_int("FLOCK_INCREMENT", 1))
        self.interval = max(1, cfg.get_int("SCHEDD_INTERVAL", 300))
        self.reach: dict[str, Reach] = {}

    def enabled(self) -> bool:
        return self.max_level > 0

    def level_of(self, pool: str) -> int:
        """The flock level of a pool (its place in FLOCK_COLLECTOR_HOSTS, from 1); 0 for
        the local pool, or one not on the list."""
        try:
            return self.pools.index(pool) + 1
        except ValueError:
            return 0

    def of(self, submitter: str, now: float) -> Reach:
        found = self.reach.get(submitter)
        if found is None:
            found = self.reach[submitter] = Reach(self.min_level, self.min_level, now)
        return found

    def negotiated(self, submitter: str, pool: str, satisfied: bool, now: float) -> None:
        """A negotiator of `pool` ("" for the local one) is done with the submitter."""
        reach = self.of(submitter, now)
        at = self.level_of(pool)
        if satisfied or reach.level == at:
            # Not when an unsatisfying pool below the current level calls: then the
            # current one's silence would never move the submitter on.
            reach.served = now
        if satisfied:
            if reach.level > at and reach.level > self.min_level:
                new = max(at, self.min_level)
                log.info(
                    "Decreasing flock level for %s to %d from %d.", submitter, new, reach.level
                )
                reach.level = new
        elif reach.level < self.max_level and reach.level == at:
            new = min(reach.level + self.increment, self.max_level)
            log.info("Increasing flock level for %s to %d from %d.", submitter, new, reach.level)
            reach.level = new

    def tick(self, idle: dict[str, int], now: float) -> None:
        """Every SCHEDD_INTERVAL: a submitter with idle jobs that no negotiator has served
        for two intervals flocks further (its negotiator may be down, or ignoring it)."""
        if not self.enabled():
            return
        for submitter, count in idle.items():
            reach = self.of(submitter, now)
            if not count:
                reach.served = now
            elif now - reach.served > 2 * self.interval and reach.level < self.max_level:
                new = min(reach.level + self.increment, self.max_level)
                log.info(
                    "Increasing flock level for %s to %d from %d. (Due to lack of activity "
                    "from negotiator)",
                    submitter,
                    new,
                    reach.level,
                )
                reach.level = new
                reach.served = now

    def unreachable(self, submitter: str, level: int) -> None:
        """The pool at `level` did not take the submitter's ad: when that is where it
        stands (and stood when the ad went out), it reaches one pool further."""
        reach = self.reach.get(submitter)
        if reach is None or not (level == reach.old == reach.level < self.max_level):
            return
        reach.level += 1
        log.info("Increasing flock level for %s from %d to %d", submitter, level, reach.level)

    def sent(self) -> None:
        """Every submitter's ads have gone out at its level."""
        for reach in self.reach.values():
            reach.old = reach.level

    def idle_for(self, submitter: str, level: int, idle: int, running: int) -> int | None:
        """What the submitter's ad in the pool at `level` says is idle: its idle jobs when
        it reaches that pool; 0 while it runs jobs there or has just come back from it
        (so that pool stops negotiating for it); None when it has no ad there."""
        reach = self.reach.get(submitter)
        if reach is not None and reach.level >= level:
            count = idle
        elif (reach is not None and reach.old >= level) or running > 0:
            count = 0
        else:
            return None
        return count if count or running else None
