"""What the startd's policy reads of the machine at a moment: the clock, keyboard and
console idle times, the load average and the part of it that Condor's jobs make.

Each is measured from the real machine. A test (or a demonstration) may replace any of
them with STARTD_INPUTS_OVERRIDE, a file of old-syntax ClassAd lines read at every poll:

    KeyboardIdle = 5            # seconds since the keyboard was touched
    ConsoleIdle = 5
    NonCondorLoadAvg = 1.5      # load made by the machine's owner (Condor's is measured)
    ClockOffset = 3600          # seconds added to the clock (CurrentTime, ClockMin, ...)

so the example policies can be shown on a real startd without typing at its keyboard or
waiting for the time of day they speak of.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from condorx.classad import ClassAd, parseOne
from condorx.daemons.startd import machine as mach
from condorx.host.procfs import stat_fields

log = logging.getLogger("condorx.startd")


@dataclass(frozen=True)
class Inputs:
    now: float
    keyboard_idle: int
    console_idle: int
    load_avg: float  # the whole machine's
    owner_load: float | None  # NonCondorLoadAvg when overridden, else None (measured)


@functools.lru_cache(maxsize=4)
def clock(second: int) -> tuple[int, int]:
    """ClockMin and ClockDay (0 = Sunday) at an epoch second: every slot's ad of a poll
    asks for the same few seconds."""
    t = time.localtime(second)
    return t.tm_hour * 60 + t.tm_min, (t.tm_wday + 1) % 7


class Sensors:
    """Reads the inputs, measured or overridden. A simulated machine (`measured` false)
    reads nothing of this host at its polls: it has no keyboard or console (idle for
    NEVER_TOUCHED, as a machine with no terminal) and no owner's load, unless the
    override says otherwise, and the swap of the host it is laid out as, read once."""

    def __init__(
        self,
        override: Path | None,
        clock: Callable[[], float] = time.time,
        measured: bool = True,
    ) -> None:
        self.override = override
        self.clock = clock  # the machine's (epoch seconds)
        self.measured = measured
        self._warned = False
        self._swap: int | None = None

    def read(self) -> Inputs:
        fixed = self._overrides()
        offset = _number(fixed.get("ClockOffset")) or 0.0
        now = self.clock() + offset
        if self.measured:
            (keyboard, console), load = mach.idle_seconds(), mach.load_avg()
        else:
            keyboard = console = mach.NEVER_TOUCHED
            load = 0.0
        kb = _number(fixed.get("KeyboardIdle"))
        co = _number(fixed.get("ConsoleIdle"))
        owner = _number(fixed.get("NonCondorLoadAvg"))
        return Inputs(
            now=now,
            keyboard_idle=int(kb) if kb is not None else keyboard,
            console_idle=int(co) if co is not None else (int(kb) if kb is not None else console),
            load_avg=load,
            owner_load=owner if owner is not None or self.measured else 0.0,
        )

    def swap_free_kb(self) -> int:
        """VirtualMemory: the swap free now (on a simulated machine, as it first was)."""
        if self.measured or self._swap is None:
            self._swap = mach.swap_free_kb()
        return self._swap

    def _overrides(self) -> ClassAd:
        if self.override is None:
            return ClassAd()
        try:
            text = self.override.read_text()
        except FileNotFoundError:
            return ClassAd()
        except OSError as e:
            return self._bad(f"cannot read {self.override}: {e.strerror}")
        try:
            return parseOne(text, "old") if text.strip() else ClassAd()
        except ValueError as e:
            return self._bad(f"{self.override}: {e}")

    def _bad(self, why: str) -> ClassAd:
        if not self._warned:  # once, not at every poll
            log.warning("STARTD_INPUTS_OVERRIDE: %s; using the measured values", why)
            self._warned = True
        return ClassAd()


def _number(v: object) -> float | None:
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)
    return None


class CpuMeter:
    """The CPU each job's process tree uses (its process group), as a load average: the
    CPU seconds it used since the last reading over the seconds that passed, smoothed
    over about a minute as the kernel's own load average is. One walk of /proc reads
    every group at once, at most once a second."""

    def __init__(self) -> None:
        self.last: dict[int, tuple[float, float]] = {}  # pgid -> (when, cpu seconds)
        self.load: dict[int, float] = {}
        self.walked = 0.0

    def sample(self, pgids: list[int], now: float) -> dict[int, float]:
        """The load of each process group (0.0 for one not seen before)."""
        if pgids and now - self.walked >= 1.0:
            self.walked = now
            cpu = _group_cpu_seconds(set(pgids))
            for pgid in pgids:
                self._update(pgid, now, cpu.get(pgid, 0.0))
        for gone in set(self.last) - set(pgids):
            self.last.pop(gone, None)
            self.load.pop(gone, None)
        return {pgid: self.load.get(pgid, 0.0) for pgid in pgids}

    def _update(self, pgid: int, now: float, cpu: float) -> None:
        before = self.last.get(pgid)
        self.last[pgid] = (now, cpu)
        if before is None or now <= before[0]:
            return
        rate = max(0.0, (cpu - before[1]) / (now - before[0]))
        weight = min(1.0, (now - before[0]) / 60.0)
        self.load[pgid] = round(self.load.get(pgid, rate) * (1 - weight) + rate * weight, 3)


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _group_cpu_seconds(pgids: set[int]) -> dict[int, float]:
    """User and system CPU of every live process in each group (from /proc)."""
    wanted = {str(g) for g in pgids}
    totals: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = stat_fields(name)
        if fields is not None and len(fields) > 12 and fields[2] in wanted:
            group = int(fields[2])
            totals[group] = totals.get(group, 0) + int(fields[11]) + int(fields[12])
    return {g: t / _TICKS for g, t in totals.items()}
