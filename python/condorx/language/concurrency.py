"""Concurrency limits, as HTCondor spells them: a job's ConcurrencyLimits is a list of
`name` or `name:amount` (comma or blank separated, without case), where a name is an
attribute name, or two joined by one dot (`licenses.matlab`), and the amount is how
much of the limit the job takes (1 when absent, not a number or not above zero; a
fraction is allowed). A pool's limit for a name is `<name>_LIMIT`, else
CONCURRENCY_LIMIT_DEFAULT_<tag> for a dotted name `tag.x`, else CONCURRENCY_LIMIT_DEFAULT
(HTCondor's ParseConcurrencyLimit and Accountant::GetLimitMax)."""

from __future__ import annotations

import re

DEFAULT_LIMIT = 2308032.0  # CONCURRENCY_LIMIT_DEFAULT's default in HTCondor


def valid(word: str) -> bool:
    """Whether `name[:amount]` names a limit HTCondor accepts: the core's parser, which
    the negotiator counts by, decides (one reading of the syntax, in the core)."""
    from condorx import _core

    return bool(_core.ConcurrencyLimits.parse(word))


def words(text: str) -> list[str]:
    return [w for w in re.split(r"[,\s]+", text) if w]
