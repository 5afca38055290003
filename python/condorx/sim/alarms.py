"""One timer for every simulated job: each run asks to be woken at its next moment (its
end, its next heartbeat) and one task wakes each in turn.

A trio deadline per run (`move_on_after`) costs a cancel scope, and at its expiry a
Cancelled raised through the run's frames: at 100,000 simulated slots that was a tenth
of the simulator's CPU. Here a run waits on a plain Event, and only this one task's
sleep is cut short, once per moment that has a run to wake.
"""

from __future__ import annotations

import heapq
import itertools
import math

import trio


class Alarms:
    def __init__(self) -> None:
        self._heap: list[tuple[float, int, trio.Event]] = []
        self._order = itertools.count()  # ties wake in the order they were asked for
        self._sleep: trio.CancelScope | None = None

    def at(self, when: float, event: trio.Event) -> None:
        """Set `event` at trio time `when` (at once if that has passed). A run that is
        woken earlier by something else simply no longer waits on `event`."""
        heapq.heappush(self._heap, (when, next(self._order), event))
        if self._sleep is not None and when < self._sleep.deadline:
            self._sleep.deadline = when

    async def run(self) -> None:
        """Wake each event when its time comes; runs until cancelled."""
        heap = self._heap
        while True:
            now = trio.current_time()
            while heap and heap[0][0] <= now:
                heapq.heappop(heap)[2].set()
            with trio.CancelScope(deadline=heap[0][0] if heap else math.inf) as self._sleep:
                await trio.sleep_forever()
