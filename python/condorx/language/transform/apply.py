"""Running a transform's steps on an ad, in place, as HTCondor's TransformClassAd does.

The ad is usually a proc's own attributes chained to its cluster's: a step reads through
the chain, and writes (or deletes) in the proc. A regex step looks only at the proc's own
attribute names, as HTCondor's iteration over the chained ad does.

A step that cannot be done (an expression that does not parse, a new name that is not a
name) is logged and skipped, as HTCondor skips it; the transform goes on.

Macros in a step's rest are expanded when it runs: the transform's own first (in the
order they were set), then `$(MY.attr)` from the ad (a string's value, else the
expression as written), then the configuration.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable

from condorx.classad import ClassAd, ExprTree, Value
from condorx.language.config import metaknobs
from condorx.language.config.conditions import ConditionContext, ConditionError, evaluate
from condorx.language.config.expand import Expander
from condorx.language.transform.statements import Step, Transform

log = logging.getLogger("condorx.transform")

_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_CONDITIONALS = frozenset({"IF", "ELIF", "ELSE", "ENDIF"})
Config = Callable[[str], str | None]


def matches(transform: Transform, ad: ClassAd) -> bool:
    """Whether the transform applies to the ad: no REQUIREMENTS, or they are true (a
    number counts as its truth; undefined or an error does not match)."""
    if transform.requirements is None:
        return True
    return truth(transform.requirements.eval(ad)) is True


def truth(value: object) -> bool | None:
    """A value as a boolean, as IsBooleanValueEquiv reads it: a boolean, or a number as
    its truth; None for anything else (undefined, an error, a string)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and not isinstance(value, Value):
        return value != 0
    return None


def apply(transform: Transform, ad: ClassAd, config: Config = lambda _: None) -> set[str]:
    """Run the steps on `ad`; the names of the attributes they set or deleted (HTCondor's
    dirty attributes), as the steps spelled them."""
    run = _Run(transform, ad, config)
    for step in transform.steps:
        if step.keyword in _CONDITIONALS:
            run.branch(step)
        elif run.active():
            run.step(step)
    return run.changed


class _Run:
    def __init__(self, transform: Transform, ad: ClassAd, config: Config) -> None:
        self.name = transform.name
        self.ad = ad
        self.config = config
        self.macros: dict[str, str] = {}
        self.changed: set[str] = set()
        self.expander = Expander(self._lookup, os.environ)
        # Each open if: [whether its enclosing branch runs, whether this one does,
        # whether one of its branches was taken] (the configuration reader's rule).
        self.branches: list[list[bool]] = []

    def active(self) -> bool:
        return not self.branches or self.branches[-1][1]

    def branch(self, step: Step) -> None:
        """An if, elif, else or endif: which steps run, judged for this ad now."""
        if step.keyword == "IF":
            outer = self.active()
            truth = self._condition(step) if outer else False
            self.branches.append([outer, truth, truth])
            return
        top = self.branches[-1]  # balanced: the text was read so
        if step.keyword == "ENDIF":
            self.branches.pop()
        elif step.keyword == "ELSE":
            top[1] = top[0] and not top[2]
            top[2] = True
        elif top[0] and not top[2]:  # ELIF
            top[1] = top[2] = self._condition(step)
        else:
            top[1] = False

    def _condition(self, step: Step) -> bool:
        ctx = ConditionContext(
            expand=self.expander.expand,
            is_defined=lambda name: self._lookup(name) is not None,
            template_exists=metaknobs.exists,
        )
        try:
            return evaluate(step.rhs, ctx)
        except ConditionError as e:
            self._warn(step, f"{step.rhs} is not a valid if condition because {e}: taken as false")
            return False

    def _lookup(self, name: str) -> str | None:
        key = name.upper()
        if key in self.macros:
            return self.macros[key]
        if key.startswith("MY.") and name[3:] in self.ad:
            value = self.ad.get(name[3:])
            return value if isinstance(value, str) else str(self.ad.lookup(name[3:]))
        return self.config(name)

    def _warn(self, step: Step, what: str) -> None:
        log.error("transform %s line %d: %s %s", self.name, step.line, step.keyword, what)

    def step(self, step: Step) -> None:
        if step.keyword == "MACRO":
            self.macros[step.attr.upper()] = step.rhs
            return
        rhs = self.expander.expand(step.rhs) if "$" in step.rhs else step.rhs
        if step.keyword in ("SET", "DEFAULT"):
            if step.keyword == "DEFAULT" and step.attr in self.ad:
                return
            self._set(step, _parsed(rhs))
        elif step.keyword == "EVALSET":
            self._evalset(step, rhs)
        elif step.keyword == "EVALMACRO":
            self._evalmacro(step, rhs)
        elif step.keyword in ("COPY", "RENAME", "DELETE"):
            self._move(step, rhs)
        # NAME, UNIVERSE, REQUIREMENTS and TRANSFORM are the envelope: nothing to do here.

    def _set(self, step: Step, expr: ExprTree | None) -> None:
        if expr is None:
            self._warn(step, f"{step.attr}: invalid expression : {step.rhs}")
            return
        self.ad[step.attr] = expr
        self.changed.add(step.attr)

    def _evalset(self, step: Step, rhs: str) -> None:
        expr = _parsed(rhs)
        if expr is None:
            self._warn(step, f"{step.attr} could not evaluate : {rhs}")
            return
        self.ad[step.attr] = expr.eval(self.ad)  # its value, as a literal
        self.changed.add(step.attr)

    def _evalmacro(self, step: Step, rhs: str) -> None:
        expr = _parsed(rhs)
        if expr is None:
            self._warn(step, f"{step.attr} could not evaluate : {rhs}")
            return
        value = expr.eval(self.ad)
        text = value if isinstance(value, str) else str(expr.simplify(self.ad))
        self.macros[step.attr.upper()] = text

    def _move(self, step: Step, rhs: str) -> None:
        """COPY, RENAME or DELETE: of one attribute, or of each of the proc's own whose
        name the regex finds (the new name with `\\N` for the match's groups)."""
        if step.regex is None:
            self._move_one(step, step.attr, rhs)
            return
        found = {}
        for name in self.ad.own_keys():
            m = step.regex.search(name)
            if m is not None:
                found[name] = "" if step.keyword == "DELETE" else _groups(rhs, m)
        for name, new in sorted(found.items()):
            self._move_one(step, name, new)

    def _move_one(self, step: Step, attr: str, new: str) -> None:
        if step.keyword != "DELETE" and not _ATTR_NAME.match(new):
            self._warn(step, f"{attr}: new name {new} is not valid")
            return
        if attr not in self.ad:
            return
        if step.keyword != "DELETE":
            self.ad[new] = self.ad.lookup(attr)
            self.changed.add(new)
        if step.keyword != "COPY":
            self._delete(attr)

    def _delete(self, attr: str) -> None:
        """Gone from the proc; its cluster's value, if any, shadowed by undefined (what
        HTCondor writes for a deleted attribute: the proc then reads it as undefined)."""
        if attr.lower() in {k.lower() for k in self.ad.own_keys()}:
            del self.ad[attr]
        if attr in self.ad:
            self.ad[attr] = ExprTree("undefined")
        self.changed.add(attr)


def _parsed(text: str) -> ExprTree | None:
    if not text.strip():
        return None
    try:
        return ExprTree(text)
    except ValueError:  # a ClassAdParseError too
        return None


def _groups(template: str, m: re.Match[str]) -> str:
    """`\\N` in the template as the match's group N (N up to the groups it has)."""
    count = (m.lastindex or 0) + 1  # as pcre2_match counts: up to the last group matched

    def group(g: re.Match[str]) -> str:
        n = int(g.group(1))
        return (m.group(n) or "") if n < count else g.group(0)

    return re.sub(r"\\([0-9])", group, template)
