"""The simulator's one timer (`sim.alarms`) wakes each simulated run at its exact moment,
on trio's MockClock: one asked for later than the timer's current sleep, one earlier
(which must cut that sleep short), one already past, and two at the same moment."""

from __future__ import annotations

import trio
import trio.testing

from condorx.sim.alarms import Alarms


def test_each_event_is_set_at_its_moment_and_no_sooner():
    woken: list[tuple[str, float]] = []

    async def wait(alarms: Alarms, name: str, when: float) -> None:
        event = trio.Event()
        alarms.at(when, event)
        await event.wait()
        woken.append((name, trio.current_time()))

    async def main() -> None:
        alarms = Alarms()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(alarms.run)
            nursery.start_soon(wait, alarms, "late", 10.0)
            await trio.sleep(1.0)  # the timer now sleeps until 10
            nursery.start_soon(wait, alarms, "early", 5.0)
            nursery.start_soon(wait, alarms, "tie-1", 7.0)
            nursery.start_soon(wait, alarms, "tie-2", 7.0)
            nursery.start_soon(wait, alarms, "past", 0.5)
            await trio.sleep(20.0)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    # Tasks woken in one instant run in an order trio chooses: the moments are exact.
    assert sorted(woken, key=lambda w: (w[1], w[0])) == [
        ("past", 1.0),
        ("early", 5.0),
        ("tie-1", 7.0),
        ("tie-2", 7.0),
        ("late", 10.0),
    ]
