"""A count since the daemon began and over the recent window, as HTCondor's statistics
keep their `X` and `RecentX`: the window (STATISTICS_WINDOW_SECONDS) is a ring of quanta
(STATISTICS_WINDOW_QUANTUM each), and a quantum's counts leave the recent figure when it
falls out of the window. The clock is the caller's, so a test drives it."""

from __future__ import annotations

import collections
import math
import time
from collections.abc import Callable


class Windowed:
    def __init__(
        self,
        window: float = 1200.0,
        quantum: float = 240.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        self.quantum = max(1e-9, quantum)
        self.slots = max(1, math.ceil(window / self.quantum))
        self.total = 0
        # (the quantum's number, its count), oldest first.
        self._ring: collections.deque[list[int]] = collections.deque()

    def add(self, n: int = 1) -> None:
        self.total += n
        now = self._quantum()
        if self._ring and self._ring[-1][0] == now:
            self._ring[-1][1] += n
        else:
            self._ring.append([now, n])
        self._drop(now)

    def recent(self) -> int:
        self._drop(self._quantum())
        return sum(n for _, n in self._ring)

    def _quantum(self) -> int:
        return int(self.clock() // self.quantum)

    def _drop(self, now: int) -> None:
        while self._ring and self._ring[0][0] <= now - self.slots:
            self._ring.popleft()
