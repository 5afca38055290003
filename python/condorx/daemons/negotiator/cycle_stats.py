"""The negotiator's last cycles in its ad, as HTCondor's publishNegotiationCycleStats
writes them: for each of the last NEGOTIATION_CYCLE_STATS_LENGTH cycles (3), the newest
suffixed 0, `LastNegotiationCycleTime<N>` (when it began), `...End<N>`, `...Period<N>`
(since the cycle before began), `...Duration<N>` and its phases (1 gathering the ads,
2 nothing of its own in condorx, 3 matching, 4 handing out), `...TotalSlots<N>`,
`...CandidateSlots<N>`, `...NumSchedulers<N>`, `...NumIdleJobs<N>`,
`...ActiveSubmitterCount<N>`, `...Matches<N>`, `...Rejections<N>` and `...MatchRate<N>`
(matches a second). The durations are seconds as measured, with their fractions. A cycle
with no slot to offer is not recorded."""

from __future__ import annotations

import collections
from typing import Any

_P = "LastNegotiationCycle"


class CycleStats:
    def __init__(self, length: int = 3) -> None:
        self.cycles: collections.deque[dict[str, Any]] = collections.deque(maxlen=max(0, length))

    def record(self, cycle: dict[str, Any], began: float, ended: float) -> None:
        """A cycle's figures (`Negotiator.last_cycle`'s), with its wall-clock times."""
        self.cycles.appendleft({**cycle, "began": began, "ended": ended})

    def ad(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        cycles = list(self.cycles)
        for n, c in enumerate(cycles):
            before = cycles[n + 1]["began"] if n + 1 < len(cycles) else c["began"]
            seconds = c["seconds"]
            out[f"{_P}Time{n}"] = int(c["began"])
            out[f"{_P}End{n}"] = int(c["ended"])
            out[f"{_P}Period{n}"] = int(c["began"] - before)
            out[f"{_P}Duration{n}"] = seconds
            out[f"{_P}Phase1Duration{n}"] = c["gather"]
            out[f"{_P}Phase2Duration{n}"] = 0.0
            out[f"{_P}Phase3Duration{n}"] = c["match"]
            out[f"{_P}Phase4Duration{n}"] = c["hand_out"]
            out[f"{_P}TotalSlots{n}"] = c["total_slots"]
            out[f"{_P}CandidateSlots{n}"] = c["slots"]
            out[f"{_P}NumSchedulers{n}"] = c["schedulers"]
            out[f"{_P}NumIdleJobs{n}"] = c["idle_jobs"]
            out[f"{_P}ActiveSubmitterCount{n}"] = c["submitters"]
            out[f"{_P}Matches{n}"] = c["matches"]
            out[f"{_P}Rejections{n}"] = c["rejections"]
            out[f"{_P}MatchRate{n}"] = c["matches"] / seconds if seconds > 0 else 0.0
        return out
