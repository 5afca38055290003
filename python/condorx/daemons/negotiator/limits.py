"""The pool's concurrency limits in the negotiator, as HTCondor's accountant keeps them.

At the start of each cycle the counts are what the slots say their jobs hold (each
slot's ConcurrencyLimits, and PreemptingConcurrencyLimits for the job that is to take a
preempted slot), plus the limits of matches handed out that no slot ad shows yet (HTCondor
remembers a Matched slot's MatchedConcurrencyLimits the same way). The core then holds
each job to them through the cycle (`_core.ConcurrencyLimits`).

The maxima are `<NAME>_LIMIT` for every name the configuration defines so,
CONCURRENCY_LIMIT_DEFAULT_<tag> for a dotted name `tag.x`, and CONCURRENCY_LIMIT_DEFAULT.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from condorx.classad import ClassAd
from condorx.language.concurrency import DEFAULT_LIMIT
from condorx.language.config import Config, ConfigError
from condorx.language.negotiation import ConcurrencyLimits

log = logging.getLogger("condorx.negotiator")

_SCOPED = "CONCURRENCY_LIMIT_DEFAULT_"
_HELD_BY = ("ConcurrencyLimits", "PreemptingConcurrencyLimits")


def read_limits(cfg: Config, extra: dict[str, float] | None = None) -> ConcurrencyLimits:
    """The configuration's limits, and `extra` maxima beside them (per-resource group
    quotas, `resource_quotas`)."""
    maxima: dict[str, float] = {}
    scoped: dict[str, float] = {}
    for name in cfg.names():
        upper = name.upper()
        if upper.startswith(_SCOPED):
            value = _number(cfg, name)
            if value is not None:
                scoped[name[len(_SCOPED) :]] = value
        elif upper.endswith("_LIMIT") and len(name) > len("_LIMIT"):
            value = _number(cfg, name)
            if value is not None:
                maxima[name[: -len("_LIMIT")]] = value
    default = _number(cfg, "CONCURRENCY_LIMIT_DEFAULT")
    maxima.update(extra or {})
    return ConcurrencyLimits(maxima, scoped, DEFAULT_LIMIT if default is None else default)


def _number(cfg: Config, name: str) -> float | None:
    """The knob as param_double reads it; None (with the reason logged) when it is not a
    number, so that the next default applies."""
    if cfg.get(name) is None:
        return None
    try:
        return cfg.get_float(name, DEFAULT_LIMIT)
    except (ConfigError, ValueError) as e:
        log.error("%s is not a number (%s): the default applies", name, e)
        return None


class PoolLimits:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.core = read_limits(cfg)
        self._extra: dict[str, float] = {}
        # Matches handed out, by slot name: the limits of each, until its slot's ad
        # shows them (the slot is no longer held back as handed out).
        self.pending: dict[str, list[str]] = {}

    def start_cycle(
        self,
        slots: Iterable[ClassAd],
        still_held: Iterable[str],
        extra: dict[str, float] | None = None,
        extra_held: Iterable[str] = (),
    ) -> None:
        """Count what the pool holds now: its slots' limits and the pending matches';
        with `extra` maxima (and what the slots hold of them), those limits too."""
        if (extra or {}) != self._extra:
            self._extra = dict(extra or {})
            self.core = read_limits(self.cfg, self._extra)
        held = set(still_held)
        self.pending = {k: v for k, v in self.pending.items() if k in held}
        strings = [
            text
            for slot in slots
            for attr in _HELD_BY
            if isinstance(text := slot.get(attr), str) and text
        ]
        for texts in self.pending.values():
            strings.extend(texts)
        strings.extend(extra_held)
        self.core.hold(strings)

    def matched(self, slot: str, limits: str | None) -> None:
        if limits:
            self.pending.setdefault(slot, []).append(limits)

    def report(self) -> dict[str, float]:
        """The counts as HTCondor's accountant reports them: ConcurrencyLimit_<name>, a
        dot in the name written `_`."""
        return {
            "ConcurrencyLimit_" + name.replace(".", "_"): count
            for name, count in sorted(self.core.counts().items())
        }
