"""Why a job does not match: its Requirements, clause by clause, against a pool.

    >>> import condorx
    >>> print(condorx.analyze(job, slots).report())

In the manner of HTCondor's ``condor_q -better-analyze``: the job's Requirements are
split into their top-level ``&&`` clauses, and for each the report counts the slots it
is true, false and undefined on, and how many slots would match were that clause alone
dropped. It also counts the slots whose own Requirements (their START) reject the job,
and names attributes the job reads from the slot that no slot defines (``TARGET.Memroy``).
The counting runs in Rust with the GIL released (``condorx._core.analyze``).

``condorx.analyze`` is this module's function, exported by the package; import the
classes with ``from condorx.language.analyze import ...``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from condorx import _core
from condorx._core import ClassAd

__all__ = ["Analysis", "Clause", "analyze"]


@dataclass(frozen=True)
class Clause:
    """One top-level clause of the job's Requirements and how the pool answers it."""

    text: str
    true_on: int
    false_on: int
    undefined_on: int
    match_without: int
    """Slots that would match if this clause alone were dropped."""
    missing: list[str] = field(default_factory=list)
    """References the clause reads from the slot that no slot defines."""


@dataclass(frozen=True)
class Analysis:
    """The analysis of one job against a pool; `report()` prints it."""

    slots: int
    matching: int
    rejected_by_job: int
    rejecting_job: int
    has_requirements: bool
    clauses: list[Clause]
    suggestions: dict[str, str] = field(default_factory=dict)
    """For a missing reference, the slot attribute it was probably meant to be."""

    def missing(self) -> list[str]:
        """Every reference no slot defines, each once, in clause order."""
        return list(dict.fromkeys(m for c in self.clauses for m in c.missing))

    def verdict(self) -> str:
        """One line: how many slots match, or the likeliest reason none does."""
        if self.slots == 0:
            return "no slot matches: there are no slots"
        if self.matching:
            return f"{self.matching} of {self.slots} slots match the job"
        return f"no slot matches: {self._reason()}"

    def _reason(self) -> str:
        if not self.has_requirements:
            return "the job has no Requirements (UNDEFINED matches nothing)"
        blocker = next((c for c in self.clauses if c.true_on == 0), None)
        if blocker is not None:
            rules_out = f"the clause ({blocker.text}) rules out all {self.slots} slots"
            return rules_out + self._typo(blocker)
        if self.rejected_by_job == 0 and self.rejecting_job == self.slots:
            return f"the job's Requirements hold, but all {self.slots} slots reject the job"
        best = max(self.clauses, key=lambda c: c.match_without, default=None)
        if best is not None and best.match_without:
            return f"dropping ({best.text}) would let {best.match_without} slots match"
        if self.rejected_by_job < self.slots:
            accepted = self.slots - self.rejected_by_job
            return f"the {accepted} slots the job accepts all reject it by their Requirements"
        return f"no single clause is to blame; together they rule out all {self.slots} slots"

    def _typo(self, clause: Clause) -> str:
        if not clause.missing:
            return ""
        name = clause.missing[0]
        hint = self.suggestions.get(name)
        return f": no slot defines {name}" + (f" (did you mean {hint}?)" if hint else "")

    def report(self) -> str:
        """A readable summary in the spirit of ``condor_q -better-analyze``."""
        lines = [*self._table(), "", *self._totals()]
        if self.missing():
            lines.append("")
        for name in self.missing():
            hint = self.suggestions.get(name)
            lines.append(f"No slot defines {name}" + (f"; did you mean {hint}?" if hint else "."))
        lines += ["", f"Verdict: {self.verdict()}"]
        return "\n".join(lines)

    def _table(self) -> list[str]:
        if not self.has_requirements:
            return ["The job has no Requirements expression."]
        head = f"{'Step':<6}{'True':>7}{'False':>7}{'Undef':>7}{'Match if dropped':>18}  Condition"
        rows = [
            f"{f'[{i}]':<6}{c.true_on:>7}{c.false_on:>7}{c.undefined_on:>7}"
            f"{c.match_without:>18}  {c.text}"
            for i, c in enumerate(self.clauses)
        ]
        return [
            "The Requirements expression of the job reduces to these conditions:",
            "",
            head,
            "-" * len(head),
            *rows,
        ]

    def _totals(self) -> list[str]:
        w = len(str(self.slots))
        return [
            f"Of {self.slots} slots:",
            f"  {self.rejected_by_job:>{w}} are rejected by the job's Requirements",
            f"  {self.rejecting_job:>{w}} reject the job by their own Requirements (START)",
            f"  {self.matching:>{w}} match the job",
        ]


def _slot_attribute(reference: str) -> str | None:
    """The slot attribute a reference needs: `TARGET.x` needs x, bare `x` or `x.y` needs x."""
    base, dot, attr = reference.partition(".")
    if not dot:
        return reference
    if base.lower() in ("target", "other"):
        return attr
    return None if base.lower() in ("my", "parent") else base


def _suggest(missing: list[str], slots: list[ClassAd]) -> dict[str, str]:
    """The slot attribute each missing reference most likely meant, by spelling."""
    if not missing:
        return {}
    names: dict[str, str] = {}  # folded -> as spelled, attribute names being case-blind
    for slot in slots:
        for key in slot.keys():
            names.setdefault(key.lower(), key)
    out = {}
    for ref in missing:
        attr = _slot_attribute(ref)
        close = difflib.get_close_matches(attr.lower(), list(names), n=1) if attr else []
        if attr and close:
            prefix = ref[: len(ref) - len(attr)] if ref.endswith(attr) else ""
            out[ref] = prefix + names[close[0]]
    return out


def analyze(job: ClassAd, slots: list[ClassAd]) -> Analysis:
    """Analyze why `job` does (not) match `slots`; see the module doc."""
    total, matching, by_job, by_slot, has_req, rows = _core.analyze(job, slots)
    clauses = [
        Clause(t, yes, no, undef, without, list(miss)) for t, yes, no, undef, without, miss in rows
    ]
    missing = list(dict.fromkeys(m for c in clauses for m in c.missing))
    return Analysis(
        slots=total,
        matching=matching,
        rejected_by_job=by_job,
        rejecting_job=by_slot,
        has_requirements=has_req,
        clauses=clauses,
        suggestions=_suggest(missing, slots),
    )
