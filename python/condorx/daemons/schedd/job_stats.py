"""The schedd's job counters in its ad, with HTCondor's names (schedd_stats.cpp): the
jobs submitted, started, exited (their runs ended, however) and completed since the
schedd began, and over the recent window (`Recent...`), as `condor_status -schedd -l`
shows them and watchers of a pool read them."""

from __future__ import annotations

from typing import Any

from condorx.daemons.core.windowed import Windowed
from condorx.language.config import Config

NAMES = ("JobsSubmitted", "JobsStarted", "JobsExited", "JobsCompleted")


class JobStats:
    def __init__(self, cfg: Config | None = None) -> None:
        window = cfg.get_float("STATISTICS_WINDOW_SECONDS", 1200.0) if cfg else 1200.0
        quantum = cfg.get_float("STATISTICS_WINDOW_QUANTUM", 240.0) if cfg else 240.0
        window, quantum = max(1.0, window), max(1.0, min(quantum, window))
        self.counts = {name: Windowed(window, quantum) for name in NAMES}

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name].add(n)

    def ad(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, counter in self.counts.items():
            out[name] = counter.total
            out[f"Recent{name}"] = counter.recent()
        return out
