"""What condor_defrag publishes of itself: its counts, the arrival of whole machines
(HTCondor's MeanDrainedArrival and its spread), and its last ten drains and cancels
(RecentDrainsList, RecentCancelsList)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from condorx.classad import quote
from condorx.transport.wire import Expr

LOG_LENGTH = 10


@dataclass
class Stats:
    machines_draining: int = 0
    whole_machines: int = 0
    drain_successes: int = 0
    drain_failures: int = 0
    arrived_total: int = 0  # whole machines that arrived, in all
    arrival_sum: float = 0.0  # machines x seconds between arrivals
    mean_squared: float = 0.0
    last_arrival: int = 0

    def arrived(self, newly: int, now: int) -> None:
        """`newly` machines became whole (or stopped draining) at this poll."""
        if newly <= 0:
            return
        rate = 0.0
        if self.last_arrival > 0:
            self.arrived_total += newly
            gap = max(1, now - self.last_arrival)
            self.arrival_sum += newly * gap
            rate = newly / gap
        self.last_arrival = now
        if self.arrival_sum > 0:
            diff = rate - self.arrived_total / self.arrival_sum
            self.mean_squared += diff * diff

    def ad(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "MachinesDraining": self.machines_draining,
            "WholeMachines": self.whole_machines,
            "DrainSuccesses": self.drain_successes,
            "DrainFailures": self.drain_failures,
        }
        if self.arrival_sum > 0:
            out["MeanDrainedArrival"] = self.arrived_total / self.arrival_sum
            out["MeanDrainedArrivalSD"] = math.sqrt(self.mean_squared / self.arrived_total)
            out["DrainedMachines"] = self.arrived_total
        return out


@dataclass
class DrainLog:
    drains: deque[tuple[int, str, str]] = field(default_factory=lambda: deque(maxlen=LOG_LENGTH))
    cancels: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=LOG_LENGTH))

    def drain(self, name: str, schedule: str, when: int) -> None:
        self.drains.append((when, name, schedule))

    def cancel(self, name: str, when: int) -> None:
        self.cancels.append((when, name))

    def ad(self) -> dict[str, Any]:
        """The lists, newest first, as HTCondor's DefragLog writes them."""
        drains = ", ".join(
            f"[ when = {w}; who = {quote(n)}; what = {quote(s)} ]"
            for w, n, s in reversed(self.drains)
        )
        cancels = ", ".join(f"[ when = {w}; who = {quote(n)} ]" for w, n in reversed(self.cancels))
        return {
            "RecentDrainsList": Expr("{ " + drains + " }"),
            "RecentCancelsList": Expr("{ " + cancels + " }"),
        }
