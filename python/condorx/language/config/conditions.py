"""The condition of an ``if``/``elif`` line.

HTCondor accepts one simple condition, optionally negated once with ``!``: a boolean
(true/false/yes/no/t/f, any case) or number literal, ``defined NAME`` (also ``defined use
CATEGORY[:TEMPLATE]``), ``version OP x.y[.z]``, or ``$(MACRO)`` expanding to one of those
(empty counts as false). Anything else — ``&&``, ``||``, comparisons, several words — makes
the configuration refused, so a condition is never half understood.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from condorx.language.config.scan import is_name
from condorx.record import record
from condorx.version import VERSION

_TRUE = frozenset({"true", "yes", "t"})
_FALSE = frozenset({"false", "no", "f"})
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_VERSION_OPS: dict[str, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
}


class ConditionError(ValueError):
    """Why a condition is not one HTCondor accepts."""


@record
class ConditionContext:
    expand: Callable[[str], str]
    is_defined: Callable[[str], bool]
    template_exists: Callable[[str, str | None], bool]


def literal(word: str) -> bool | None:
    """A boolean or number literal's truth, else None."""
    low = word.lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    if _NUMBER.fullmatch(word):
        return float(word) != 0.0
    return None


def _version(rest: str) -> bool:
    parts = rest.split()
    if not parts:
        raise ConditionError("the version literal is invalid")
    if len(parts) != 2 or parts[0] not in _VERSION_OPS:
        raise ConditionError("complex conditionals are not supported")
    if not re.fullmatch(r"[\d.]+", parts[1]):
        raise ConditionError("complex conditionals are not supported")
    nums = [int(p) for p in parts[1].split(".") if p]
    if len(nums) < 2 or nums[0] < 6:
        raise ConditionError("the version literal is invalid")
    wanted = tuple((nums + [0])[:3])
    return _VERSION_OPS[parts[0]](VERSION, wanted)


def _defined(rest: str, ctx: ConditionContext) -> bool:
    words = rest.split()
    if not words:
        return False
    if words[0].lower() == "use":
        spec = rest.strip()[3:].strip()
        category, _, template = spec.partition(":")
        return ctx.template_exists(category.strip(), template.strip() or None)
    if len(words) > 1:
        raise ConditionError("defined argument must be param name, boolean, or number")
    if literal(words[0]) is not None:
        return True
    if not is_name(words[0]):
        raise ConditionError("defined argument must be param name, boolean, or number")
    return ctx.is_defined(words[0])


def evaluate(text: str, ctx: ConditionContext) -> bool:
    """The truth of a condition; raises ConditionError for one HTCondor refuses."""
    if not text.strip():
        raise ConditionError("expression is not a conditional")
    cond = ctx.expand(text).strip()
    negate = cond.startswith("!")
    if negate:
        cond = cond[1:].lstrip()
    return _simple(cond, ctx) != negate


def _simple(cond: str, ctx: ConditionContext) -> bool:
    if not cond:
        return False
    word, _, rest = cond.partition(" ")
    if len(word) < len(cond) and "\t" in word:
        word, _, rest = cond.partition("\t")
    keyword = word.lower()
    if keyword == "defined":
        return _defined(rest, ctx)
    if keyword == "version":
        return _version(rest)
    if any(c.isspace() for c in cond) or re.search(r"[!=<>&|()+*/\"-]", cond[1:]):
        raise ConditionError("complex conditionals are not supported")
    truth = literal(cond)
    if truth is None:
        raise ConditionError("expression is not a conditional")
    return truth
