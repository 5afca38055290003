"""A slot as its policy sees it at one moment, made only as far as the policy reads it.

Every poll evaluates each slot's policy (IS_OWNER, START, SUSPEND, ...). Most of those
expressions read only what changes with the slot's state, claim and job: its ad's fixed
part (`ads.fixed_part`), never the time or the machine's readings. The default IS_OWNER,
`(START =?= false)`, is one. Such an expression has one value for as long as the fixed
part stays the same, so it is evaluated once per fixed part, not at every poll; and a
poll whose expressions are all of that kind does not make the slot's view at all. At
100,000 simulated slots, making each view at every poll was most of what the simulator
did.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, Protocol

from condorx.classad import ClassAd
from condorx.daemons.startd.policy import parsed
from condorx.transport.wire import Expr


class _Unknown:
    """Not known without the slot's whole view."""


UNKNOWN: Any = _Unknown()

# What a text may read beyond the attributes it names: a function call (time() reads the
# clock, random() is random), or a scope by its bare name (`Other`, `TARGET`, `parent`
# name no attribute, and may stand for the job's ad). Such a text is never kept.
_MAY_READ_MORE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*\s*\(|\b(?:target|other|parent|root)\b|\bmy\b(?!\s*\.)",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=256)
def references(text: str) -> tuple[str, ...] | None:
    """The attributes the text names (lower case, without MY.); None when it may read
    more: it calls a function, names a scope, or names another scope's attribute."""
    if _MAY_READ_MORE.search(text):
        return None
    out = []
    for ref in ClassAd().externalRefs(parsed(text)):
        name = ref.lower().removeprefix("my.")
        if "." in name:
            return None
        out.append(name)
    return tuple(out)


def reads_fixed_only(text: str, fixed: Mapping[str, Any], policy: Mapping[str, str]) -> bool:
    """Whether `text`, evaluated in a slot's view, reads nothing but the view's fixed
    part: `fixed` (its attributes by lower-case name) and the `policy` expressions that
    stand in the view by name (lower-case name to text), following the expressions it
    reads. A name the view lacks is looked up in the job's ad: not fixed."""
    seen: set[str] = set()
    todo = [text]
    while todo:
        refs = references(todo.pop())
        if refs is None:
            return False
        for name in refs:
            if name in seen:
                continue
            seen.add(name)
            if name in policy:
                todo.append(policy[name])
                continue
            value = fixed.get(name)
            if value is None:
                return False
            if isinstance(value, Expr):
                todo.append(value.text)
    return True


class Source(Protocol):
    """What a scope reads of its slot's table (`table.SlotTable`)."""

    def view(self, slot: Any) -> ClassAd: ...
    def kept_values(self, slot: Any) -> dict[str, Any] | None: ...
    def fixed_value(self, slot: Any, text: str) -> Any: ...
    def state_value(self, slot: Any, text: str) -> Any: ...


class SlotScope:
    """What a slot's policy expressions say at one moment: the value for the slot's state
    and activity of a text that reads no more of it (as each default expression); else
    the value kept for the slot's fixed part when the text reads only that; else the
    value in the slot's view, made the first time one needs it."""

    __slots__ = ("_source", "_slot", "_view", "_kept")

    def __init__(self, source: Source, slot: Any, view: ClassAd | None = None) -> None:
        """`view`: the slot's view, when the caller has it made already."""
        self._source = source
        self._slot = slot
        self._view = view
        self._kept: dict[str, Any] | None | object = _ABSENT  # asked when first needed

    def ad(self) -> ClassAd:
        """The slot's view (made once)."""
        if self._view is None:
            self._view = self._source.view(self._slot)
            self._kept = _ABSENT  # now the slot's, if it was not
        return self._view

    def kept_value(self, text: str) -> Any:
        """The value kept for `text` (made now if need be), or UNKNOWN: it reads more
        than the fixed part, or no view of the slot's fixed part is kept."""
        kept = self._kept
        if kept is _ABSENT:
            kept = self._kept = self._source.kept_values(self._slot)
        if kept is None:
            return UNKNOWN
        assert isinstance(kept, dict)
        value = kept.get(text, _ABSENT)
        if value is _ABSENT:
            value = kept[text] = self._source.fixed_value(self._slot, text)
        return value

    def eval_text(self, text: str, job: ClassAd | None) -> Any:
        value = self._source.state_value(self._slot, text)
        if value is UNKNOWN:
            value = self.kept_value(text)
        if value is UNKNOWN:
            value = parsed(text).eval(self.ad(), job)
        return value


_ABSENT = object()
