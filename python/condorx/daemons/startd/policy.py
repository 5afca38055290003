"""The startd's policy expressions (manual 3.5.3-3.5.9), read once from the
configuration, and what they say about a slot at a moment.

Each expression is evaluated with the slot's ad as MY and, when a job runs there, the
job's ad as TARGET. A job of the vanilla universe uses the `_VANILLA` variant of an
expression when the configuration defines one ("Without specific vanilla versions, the
normal versions will be used for all jobs").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Protocol

from condorx.classad import ClassAd, ExprTree
from condorx.language.config import Config
from condorx.language.config.errors import ConfigError

VANILLA = 5

# The expressions the state machine reads, and their meaning when not configured. The
# seed's default IsOwner is `START =?= FALSE` (the configuration tables of later HTCondor
# versions say FALSE; the issue follows the seed), used unless IS_OWNER is set by hand.
DEFAULTS = {
    "START": "true",
    "IS_OWNER": "(START =?= false)",
    "RANK": "0.0",
    "WANT_SUSPEND": "false",
    "SUSPEND": "false",
    "CONTINUE": "true",
    "PREEMPT": "false",
    "WANT_VACATE": "true",
    "KILL": "false",
    "MaxJobRetirementTime": "0",
    "CLAIM_WORKLIFE": "-1",
    "RunBenchmarks": "false",
    "START_BACKFILL": "false",
    "EVICT_BACKFILL": "false",
    "IS_VALID_CHECKPOINT_PLATFORM": "true",
    "CPUBusy": "false",
    # What the slot weighs in the negotiator's pie and its users' usage (SlotWeight).
    "SLOT_WEIGHT": "Cpus",
}
# Expressions with a _VANILLA variant.
VARIANTS = frozenset({"WANT_SUSPEND", "SUSPEND", "CONTINUE", "PREEMPT", "WANT_VACATE", "KILL"})


class Scope(Protocol):
    """A slot seen by its policy without its whole view made up front (`scope.SlotScope`)."""

    def ad(self) -> ClassAd: ...
    def eval_text(self, text: str, job: ClassAd | None) -> Any: ...


# Where an expression is evaluated: the slot's view, or a scope that makes it if needed.
SlotView = ClassAd | Scope


@dataclass(frozen=True)
class Policy:
    texts: dict[str, str]  # name (and NAME_VANILLA) -> the expression's text

    @classmethod
    def from_config(cls, cfg: Config) -> Policy:
        """The expressions as configured; one that does not parse is refused by name."""
        texts: dict[str, str] = {}
        for name, default in DEFAULTS.items():
            # IS_OWNER: the seed's default, not the configuration table's, unless set.
            by_hand = name != "IS_OWNER" or cfg.where(name) is not None
            value = cfg.get(name) if by_hand else None
            texts[name] = _checked(name, value.strip() if value and value.strip() else default)
            if name in VARIANTS:
                vanilla = cfg.get(f"{name}_VANILLA")
                if vanilla and vanilla.strip():
                    texts[f"{name}_VANILLA"] = _checked(f"{name}_VANILLA", vanilla.strip())
        return cls(texts)

    def text(self, name: str, job: ClassAd | None = None) -> str:
        if job is not None and name in VARIANTS and job.get("JobUniverse") == VANILLA:
            return self.texts.get(f"{name}_VANILLA", self.texts[name])
        return self.texts[name]

    def value(self, name: str, slot: SlotView, job: ClassAd | None = None) -> Any:
        """The expression's value with the slot as MY and the job (if any) as TARGET."""
        text = self.text(name, job)
        if isinstance(slot, ClassAd):
            return parsed(text).eval(slot, job)
        return slot.eval_text(text, job)

    def holds(self, name: str, slot: SlotView, job: ClassAd | None = None) -> bool:
        return self.value(name, slot, job) is True

    def is_false(self, name: str, slot: SlotView) -> bool:
        """FALSE when evaluated locally (no job): UNDEFINED does not count."""
        return self.value(name, slot) is False

    def number(self, name: str, slot: SlotView, job: ClassAd | None = None) -> float | None:
        """The expression as a number; a boolean counts as 1 or 0, as HTCondor's
        EvalFloat has it (`RANK = TARGET.Important =?= True` ranks such jobs 1)."""
        v = self.value(name, slot, job)
        if isinstance(v, int | float):
            return float(v)
        return None

    def retirement_time(self, slot: SlotView, job: ClassAd | None) -> float:
        """MaxJobRetirementTime: the startd's, lowered (never raised) by the job's own."""
        granted = self.number("MaxJobRetirementTime", slot, job) or 0.0
        if job is not None and "MaxJobRetirementTime" in job:
            own = job.eval("MaxJobRetirementTime", slot if isinstance(slot, ClassAd) else slot.ad())
            if isinstance(own, int | float) and not isinstance(own, bool):
                granted = min(granted, float(own))
        return max(0.0, granted)


def _checked(name: str, text: str) -> str:
    try:
        parsed(text)
    except ValueError as e:
        raise ConfigError(f"{name}: not a ClassAd expression: {e}") from None
    return text


@functools.lru_cache(maxsize=256)
def parsed(text: str) -> ExprTree:
    # The same few texts are evaluated for every slot at every poll: parse each once.
    return ExprTree(text)
