"""What draining the machine now would cost, as HTCondor's startd publishes it in every
slot's ad (ResMgr::compute_draining_attrs): condor_defrag's default DEFRAG_RANK,
-ExpectedMachineGracefulDrainingBadput, drains the machine that loses least first.

For each claimed slot, with its cores, its job's run time so far, the retirement time
left to it (MaxJobRetirementTime less the run time) and the vacate time it would be given
(MachineMaxVacateTime):

- a quick drain loses cores x (run time + vacate time), and is done when the longest
  vacate time is over;
- a graceful drain loses cores x (run time + the longer of the retirement left and the
  vacate time), and is done when the longest of those is over.

The completions are absolute times (now, once nothing runs).
"""

from __future__ import annotations

from typing import Any

from condorx.daemons.startd.policy import Policy
from condorx.daemons.startd.slots import Slot
from condorx.language.config import Config

ATTRS = (
    "ExpectedMachineGracefulDrainingBadput",
    "ExpectedMachineQuickDrainingBadput",
    "ExpectedMachineGracefulDrainingCompletion",
    "ExpectedMachineQuickDrainingCompletion",
)


class Estimator:
    """A machine's estimates, made at most once a second (every view of a slot its policy
    reads carries them, and a view is made at every transition; HTCondor's are made once
    an update). The retirement time is the policy's, read once per job; the view its
    evaluation builds, while estimating, carries none."""

    def __init__(self, policy: Policy, cfg: Config) -> None:
        self.policy = policy
        self.vacate_time = vacate_time(cfg)
        self._busy = False
        self._retirement: dict[tuple[str, float], float] = {}
        self._made: tuple[int, dict[str, int]] = (-1, {})

    def __call__(self, slots: list[Slot], now: float, scope: Any) -> dict[str, int]:
        if self._busy:
            return {}
        if self._made[0] == int(now):
            return self._made[1]
        self._busy = True
        try:
            made = estimates(slots, self.policy, now, self._retiring(scope), self.vacate_time)
        finally:
            self._busy = False
        self._made = (int(now), made)
        return made

    def _retiring(self, scope: Any) -> Any:
        def retirement(slot: Slot) -> float:
            claim = slot.claim
            assert claim is not None and claim.job is not None
            key = (claim.id, claim.job_start)
            found = self._retirement.get(key)
            if found is None:
                if len(self._retirement) > 4096:
                    self._retirement.clear()
                found = self._retirement[key] = self.policy.retirement_time(scope(slot), claim.job)
            return found

        return retirement


def estimates(
    slots: list[Slot], policy: Policy, now: float, retiring: Any, vacate_time: float
) -> dict[str, int]:
    """The four Expected* attributes; `retiring(slot)` is the MaxJobRetirementTime of
    its job, asked only when that is not the policy's plain 0."""
    graceful_badput = quick_badput = 0.0
    graceful_done = quick_done = 0.0
    running = False
    for slot in slots:
        claim = slot.claim
        if claim is None or not claim.claimed:
            continue
        job = claim.job
        runtime = max(0.0, now - claim.job_start) if job is not None else 0.0
        running = running or job is not None
        retirement = 0.0
        if job is not None and (
            policy.texts["MaxJobRetirementTime"] != "0" or ("MaxJobRetirementTime" in job)
        ):
            retirement = max(0.0, retiring(slot) - runtime)
        cpus = max(1, slot.cpus)
        remaining = max(retirement, vacate_time)
        quick_badput += cpus * (runtime + vacate_time)
        graceful_badput += cpus * (runtime + remaining)
        graceful_done = max(graceful_done, remaining)
        quick_done = max(quick_done, vacate_time)
    base = now if running else 0.0
    return {
        ATTRS[0]: _capped(graceful_badput),
        ATTRS[1]: _capped(quick_badput),
        ATTRS[2]: _capped(base + graceful_done) if running else int(now),
        ATTRS[3]: _capped(base + quick_done) if running else int(now),
    }


def _capped(value: float) -> int:
    """As HTCondor's cap_int: a huge retirement time stays an int."""
    return int(min(value, 2**31 - 1))


def vacate_time(cfg: Config) -> float:
    """MachineMaxVacateTime in seconds (the configuration evaluates `10 * 60`); HTCondor's
    ten minutes when it is not a number of seconds."""
    value = cfg.get_float("MachineMaxVacateTime", 600.0)
    return value if value >= 0 else 600.0
