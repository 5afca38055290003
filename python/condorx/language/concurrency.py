"""Concurrency limits, as HTCondor spells them: a job's ConcurrencyLimits is a list of
`name` or `name:amount` (comma or blank separated, without case), where a name is an
attribute name, or two joined by one dot (`licenses.matlab`), and the amount is how
much of the limit the job takes (1 when absent, not a number or not above zero; a
fraction is allowed). A pool's limit for a name is `<name>_LIMIT`, else
CONCURRENCY_LIMIT_DEFAULT_<tag> for a dotted name `tag.x`, else CONCURRENCY_LIMIT_DEFAULT
(HTCondor's ParseConcurrencyLimit and Accountant::GetLimitMax)."""

from __future__ import annotations

import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# strtod's reading of the amount: the longest number at its start (the rest ignored).
_AMOUNT = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
DEFAULT_LIMIT = 2308032.0  # CONCURRENCY_LIMIT_DEFAULT's default in HTCondor


def parse_one(text: str) -> tuple[str, float] | None:
    """`name[:amount]` as (name, amount); None when the name is not a valid one."""
    name, colon, amount = text.partition(":")
    increment = 1.0
    if colon:
        found = _AMOUNT.match(amount)
        increment = float(found.group(1)) if found else 0.0
        if not increment > 0:
            increment = 1.0
    head, dot, tail = name.partition(".")
    if not _NAME.match(head) or (dot and not _NAME.match(tail)):
        return None
    return name, increment


def words(text: str) -> list[str]:
    return [w for w in re.split(r"[,\s]+", text) if w]
