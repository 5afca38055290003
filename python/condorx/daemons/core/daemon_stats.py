"""HTCondor's DaemonCore statistics, which every daemon puts in its own ad: how busy its
event loop is and what the process uses (the MonitorSelf* attributes), as
`condor_status -l` and the wheel's `htcondor ap status` read them.

- **DaemonCoreDutyCycle**: the share of the daemon's life its event loop spent working
  rather than waiting for I/O (HTCondor's time outside select); **RecentDaemonCoreDutyCycle**
  the same over the last STATISTICS_WINDOW_SECONDS (1200 s), from samples of what the
  loop waited taken at most every STATISTICS_WINDOW_QUANTUM (240 s), as HTCondor's
  windows move by quanta.
- **MonitorSelfTime**, **MonitorSelfAge** (seconds since the daemon began),
  **MonitorSelfCPUUsage** (percent of one core since the last ad),
  **MonitorSelfImageSize** and **MonitorSelfResidentSetSize** (KiB),
  **MonitorSelfRegisteredSocketCount** (the sockets it holds open).

The loop's waits are timed by a trio instrument (`install`): before and after each wait
for I/O, two clock reads. What an ad shows is made at most once a second.
"""

from __future__ import annotations

import collections
import os
import time
from typing import Any

import trio

from condorx.language.config import Config


class DutyCycle(trio.abc.Instrument):
    def __init__(
        self, window: float = 1200.0, quantum: float = 240.0, clock: Any = time.monotonic
    ) -> None:
        self.clock = clock
        self.started = clock()
        self.window, self.quantum = window, quantum
        self.waited = 0.0  # seconds the loop has spent waiting for I/O
        self._since: float | None = None
        # (when, waited by then): the recent window's samples, oldest first.
        self.samples: collections.deque[tuple[float, float]] = collections.deque()
        self.samples.append((self.started, 0.0))

    def before_io_wait(self, timeout: float) -> None:
        self._since = self.clock()

    def after_io_wait(self, timeout: float) -> None:
        if self._since is not None:
            self.waited += self.clock() - self._since
            self._since = None

    def figures(self, now: float) -> tuple[float, float]:
        """(over the daemon's life, over the recent window)."""
        if now - self.samples[-1][0] >= self.quantum:
            self.samples.append((now, self.waited))
        while len(self.samples) > 1 and now - self.samples[1][0] >= self.window:
            self.samples.popleft()
        life = _busy(now - self.started, self.waited)
        when, waited = self.samples[0]
        return life, _busy(now - when, self.waited - waited)


def _busy(elapsed: float, waited: float) -> float:
    if elapsed <= 0:
        return 0.0
    return min(1.0, max(0.0, 1.0 - waited / elapsed))


class SelfMonitor:
    """The process's own figures, and the duty cycle: an ad's worth, once a second."""

    def __init__(self, duty: DutyCycle) -> None:
        self.duty = duty
        self._cpu = (time.monotonic(), _cpu_seconds())
        self._made: tuple[int, dict[str, Any]] = (-1, {})

    def ad(self) -> dict[str, Any]:
        now = time.monotonic()
        if self._made[0] == int(now):
            return self._made[1]
        life, recent = self.duty.figures(now)
        cpu = _cpu_seconds()
        then, before = self._cpu
        usage = 100.0 * (cpu - before) / (now - then) if now > then else 0.0
        self._cpu = (now, cpu)
        vm, rss = _memory_kib()
        out = {
            "DaemonCoreDutyCycle": round(life, 6),
            "RecentDaemonCoreDutyCycle": round(recent, 6),
            "MonitorSelfTime": int(time.time()),
            "MonitorSelfAge": int(now - self.duty.started),
            "MonitorSelfCPUUsage": round(usage, 3),
            "MonitorSelfImageSize": vm,
            "MonitorSelfResidentSetSize": rss,
            "MonitorSelfRegisteredSocketCount": _sockets(),
        }
        self._made = (int(now), out)
        return out


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def _memory_kib() -> tuple[int, int]:
    """VmSize and VmRSS, KiB (0 where /proc does not say)."""
    found = {"VmSize": 0, "VmRSS": 0}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in found:
                    found[name] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return found["VmSize"], found["VmRSS"]


def _sockets() -> int:
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return 0
    count = 0
    for fd in fds:
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except OSError:
            continue
    return count


_monitor: SelfMonitor | None = None


def install(cfg: Config) -> None:
    """Time this process's event loop (in the trio run the daemon serves in)."""
    global _monitor
    window = max(1.0, cfg.get_float("STATISTICS_WINDOW_SECONDS", 1200.0))
    quantum = max(1.0, cfg.get_float("STATISTICS_WINDOW_QUANTUM", 240.0))
    duty = DutyCycle(window, min(quantum, window))
    trio.lowlevel.add_instrument(duty)
    _monitor = SelfMonitor(duty)


def ad() -> dict[str, Any]:
    """The statistics for this daemon's ad (none when its loop is not timed)."""
    return _monitor.ad() if _monitor is not None else {}
