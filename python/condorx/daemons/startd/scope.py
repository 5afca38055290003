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
from collections.abc import Callable, Mapping
from typing import Any

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


class SlotScope:
    """What a slot's policy expressions say at one moment: each from the values kept for
    the slot's fixed part when it reads only that, else from the slot's view, made the
    first time one needs it."""

    def __init__(
        self,
        make_view: Callable[[], ClassAd],
        kept: Callable[[], dict[str, Any] | None],
        fixed_value: Callable[[str], Any],
        view: ClassAd | None = None,
    ) -> None:
        """`make_view`: the slot's view, made now; `kept`: the values kept for the fixed
        part of the slot's view, None when that view is not the slot's now;
        `fixed_value`: a text's value from the fixed part, or UNKNOWN when it reads
        more; `view`: the view, when the caller has it made already."""
        self._make_view = make_view
        self._kept_for = kept
        self._fixed_value = fixed_value
        self._view = view
        self._kept = kept()  # asked once: a settle evaluates a dozen expressions

    def ad(self) -> ClassAd:
        """The slot's view (made once)."""
        if self._view is None:
            self._view = self._make_view()
            self._kept = self._kept_for()  # now the slot's, if it was not
        return self._view

    def kept_value(self, text: str) -> Any:
        """The value kept for `text` (made now if need be), or UNKNOWN: it reads more
        than the fixed part, or no view of the slot's fixed part is kept."""
        kept = self._kept
        if kept is None:
            return UNKNOWN
        value = kept.get(text, _ABSENT)
        if value is _ABSENT:
            value = kept[text] = self._fixed_value(text)
        return value

    def eval_text(self, text: str, job: ClassAd | None) -> Any:
        value = self.kept_value(text)
        if value is UNKNOWN:
            value = parsed(text).eval(self.ad(), job)
        return value


_ABSENT = object()
