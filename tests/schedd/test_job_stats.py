"""The schedd's job counters (HTCondor's JobsSubmitted, JobsStarted, JobsExited,
JobsCompleted and their Recent forms): a windowed count on a clock of the test's own,
and the counters of a real pool that ran three jobs."""

from __future__ import annotations

from condorx.daemons.core.windowed import Windowed
from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_recent_counts_leave_the_window_a_quantum_at_a_time():
    clock = Clock()
    count = Windowed(window=100.0, quantum=25.0, clock=clock)
    count.add(2)  # quantum 0
    clock.now = 30.0
    count.add(3)  # quantum 1
    assert (count.total, count.recent()) == (5, 5)
    clock.now = 99.0  # quantum 3: 0 and 1 still within the four the window holds
    assert count.recent() == 5
    clock.now = 100.0  # quantum 4: the first has left
    assert count.recent() == 3
    clock.now = 125.0  # quantum 5: so has the second
    assert (count.total, count.recent()) == (5, 0)


def test_a_pool_counts_the_jobs_it_took_ran_and_completed(tmp_path):
    config = QUICK_POOL + "SCHEDD_INTERVAL = 1\n"
    with LocalPool.running(
        tmp_path, "collector", "negotiator", "startd", "schedd", config=config
    ) as pool:
        pool.submit("executable = /bin/true\nqueue 3\n")
        names = [
            f"{p}Jobs{w}"
            for w in ("Submitted", "Started", "Exited", "Completed")
            for p in ("", "Recent")
        ]

        def counters() -> list[str]:
            return pool.cli("condorx.cli.status", "-schedd", "-af", *names).stdout.split()

        wait_for(lambda: counters() == ["3"] * 8, "three jobs submitted, run and completed", 60)
