"""How long a simulated job runs: its own `SimDuration`, else SIM_JOB_DURATION, which is
a number of seconds or a distribution to draw from:

    SIM_JOB_DURATION = 60
    SIM_JOB_DURATION = uniform(30, 90)        # seconds, low and high
    SIM_JOB_DURATION = exponential(600)       # mean
    SIM_JOB_DURATION = normal(600, 120)       # mean and standard deviation, cut at 0
    SIM_JOB_DURATION = lognormal(6.0, 1.0)    # mu and sigma of the duration's logarithm
    SIM_JOB_DURATION = weibull(600, 1.5)      # scale and shape

A job's draw depends only on SIM_SEED and its job id, not on the order jobs start in, so
two runs of one queue under two configurations give each job the same duration: a
what-if compares the negotiation, not the luck of the draw.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from condorx.language.config.errors import ConfigError

_DRAWS: dict[str, tuple[int, Callable[[random.Random, list[float]], float]]] = {
    "uniform": (2, lambda r, a: r.uniform(a[0], a[1])),
    "exponential": (1, lambda r, a: r.expovariate(1.0 / a[0])),
    "normal": (2, lambda r, a: r.gauss(a[0], a[1])),
    "lognormal": (2, lambda r, a: r.lognormvariate(a[0], a[1])),
    "weibull": (2, lambda r, a: r.weibullvariate(a[0], a[1])),
}
_CALL = re.compile(r"^\s*([a-z]+)\s*\((.*)\)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Durations:
    """SIM_JOB_DURATION, read once."""

    kind: str  # "constant" or one of _DRAWS
    args: tuple[float, ...]
    seed: str = ""

    @classmethod
    def parse(cls, text: str, seed: str = "", knob: str = "SIM_JOB_DURATION") -> Durations:
        """The setting's meaning; ConfigError naming it when it has none."""
        text = text.strip()
        try:
            seconds = float(text)
        except ValueError:
            pass
        else:
            if not math.isfinite(seconds) or seconds < 0:
                raise ConfigError(f"{knob}: a duration must be 0 or more seconds, not {text}")
            return cls("constant", (seconds,), seed)
        m = _CALL.match(text)
        if m is None or m.group(1).lower() not in _DRAWS:
            names = ", ".join(_DRAWS)
            raise ConfigError(f"{knob}: not seconds or a distribution ({names}): {text!r}")
        kind = m.group(1).lower()
        wanted, _ = _DRAWS[kind]
        try:
            args = tuple(float(a) for a in m.group(2).split(",")) if m.group(2).strip() else ()
        except ValueError:
            raise ConfigError(f"{knob}: {kind}() takes numbers: {text!r}") from None
        if len(args) != wanted or not all(math.isfinite(a) for a in args):
            raise ConfigError(f"{knob}: {kind}() takes {wanted} number(s): {text!r}")
        if not _valid(kind, args):
            raise ConfigError(f"{knob}: {kind}{args} is not a distribution")
        return cls(kind, args, seed)

    def of(self, job: str, own: Any = None) -> float:
        """Seconds the job `job` (its "cluster.proc") runs; `own` is its SimDuration."""
        if isinstance(own, int | float) and not isinstance(own, bool) and own >= 0:
            return float(own)
        if self.kind == "constant":
            return self.args[0]
        draw = _DRAWS[self.kind][1](random.Random(f"{self.seed}:{job}"), list(self.args))
        return max(0.0, draw)


def _valid(kind: str, args: tuple[float, ...]) -> bool:
    if kind == "uniform":
        return 0 <= args[0] <= args[1]
    if kind == "exponential":
        return args[0] > 0
    if kind in ("normal", "lognormal"):
        return args[1] >= 0
    return args[0] > 0 and args[1] > 0  # weibull
