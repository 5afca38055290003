"""The DaemonCore statistics every daemon's ad carries: the duty cycle from the event
loop's waits, over its life and over the recent window, on a clock of the test's own."""

from __future__ import annotations

import pytest
import trio

from condorx.daemons.core.daemon_stats import DutyCycle, SelfMonitor


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def wait(duty: DutyCycle, clock: Clock, seconds: float, busy: float) -> None:
    """The loop works `busy` seconds, then waits `seconds` for I/O."""
    clock.now += busy
    duty.before_io_wait(seconds)
    clock.now += seconds
    duty.after_io_wait(seconds)


def test_the_duty_cycle_is_the_share_of_time_not_spent_waiting():
    clock = Clock()
    duty = DutyCycle(window=100.0, quantum=10.0, clock=clock)
    for _ in range(10):  # 100 s: a second of work, then nine of waiting, ten times
        wait(duty, clock, 9.0, 1.0)
    assert duty.figures(clock.now) == pytest.approx((0.1, 0.1), rel=1e-12)
    for _ in range(10):  # 100 s more, all work
        clock.now += 10.0
        duty.figures(clock.now)  # an ad is made every 10 s
    life, recent = duty.figures(clock.now)
    assert life == pytest.approx((200.0 - 90.0) / 200.0, rel=1e-12)  # 90 s waited in 200
    assert recent == 1.0  # the last 100 s were all work


def test_the_recent_window_forgets_what_is_older_than_it():
    clock = Clock()
    duty = DutyCycle(window=20.0, quantum=5.0, clock=clock)
    for _ in range(6):  # 30 s of waiting, sampled every 5 s
        wait(duty, clock, 5.0, 0.0)
        duty.figures(clock.now)
    clock.now += 5.0  # then 5 s of work
    life, recent = duty.figures(clock.now)
    assert life == pytest.approx(5.0 / 35.0, rel=1e-12)
    assert recent == pytest.approx(5.0 / 20.0, rel=1e-12)  # its 20 s: 15 waited, 5 worked


def test_a_daemon_ad_carries_htcondors_names():
    async def main() -> dict:
        duty = DutyCycle()
        trio.lowlevel.add_instrument(duty)
        await trio.sleep(0.01)
        return SelfMonitor(duty).ad()

    ad = trio.run(main)
    assert set(ad) == {
        "DaemonCoreDutyCycle",
        "RecentDaemonCoreDutyCycle",
        "MonitorSelfTime",
        "MonitorSelfAge",
        "MonitorSelfCPUUsage",
        "MonitorSelfImageSize",
        "MonitorSelfResidentSetSize",
        "MonitorSelfRegisteredSocketCount",
    }
    assert 0.0 <= ad["RecentDaemonCoreDutyCycle"] <= 1.0
    assert ad["MonitorSelfResidentSetSize"] > 0 and ad["MonitorSelfImageSize"] > 0
