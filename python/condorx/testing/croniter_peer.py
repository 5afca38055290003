"""croniter, the independent cron library condorx's next-run times are checked and
benchmarked against (tests/cron/test_against_croniter.py, benches/cron_bench.py).

croniter ORs day of month with day of week when both are restricted (day_or), as HTCondor
does; where its reading of a field differs from HTCondor's, `for_croniter` rewrites the
field into words croniter reads as HTCondor does:
- a one-value range `a-a` (and `a-a/n`) croniter takes for `*`: it becomes the value;
- a day of week of `*/1` croniter counts as restricting the days, where HTCondor and Vixie
  cron take it for `*`: it becomes `*`;
- a written-out day of week naming every day (`0-6`, `0,*/1`) croniter sometimes reads as
  `*`, where HTCondor ORs it with the day of month (so every day runs): both become `*`;
- a day of month naming every day is `*` to HTCondor (the day of week alone decides),
  while croniter ORs a written-out `1-31`: it becomes `*`.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from condorx.language.cron import CronSpec

# (lowest, highest) of each field, in crontab order; day of week allows 7 for Sunday.
RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


def for_croniter(spec: CronSpec) -> str:
    """The schedule as a crontab line croniter reads as condorx and HTCondor do."""
    words: list[str] = []
    for i, (f, (lo, hi)) in enumerate(zip(spec.fields(), RANGES, strict=True)):
        f = re.sub(r"\b(\d+)-\1(/\d+)?\b", r"\1", f)
        if i != 4:
            words.append("*" if covers_all(f, lo, hi) else f)
        elif all(item in ("*", "*/1") for item in f.split(",")):
            words.append("*")
        elif covers_all(f, lo, hi):  # written out yet naming every day: so is the union
            words[2] = "*"
            words.append("*")
        else:
            words.append(f)
    return " ".join(words)


def covers_all(field: str, lo: int, hi: int) -> bool:
    """Whether a field (numbers, ranges, steps, lists, `*`) names every value lo..hi."""
    values: set[int] = set()
    for term in field.split(","):
        span, _, step = term.partition("/")
        a, _, b = span.partition("-")
        first, last = (lo, hi) if a == "*" else (int(a), int(b or a))
        values.update(range(first, last + 1, int(step or 1)))
    if hi == 7:  # day of week: 7 is Sunday, as 0 is
        values = {v % 7 for v in values}
        hi = 6
    return values >= set(range(lo, hi + 1))


def croniter_runs(line: str, after: int, n: int, zone: str) -> list[int]:
    """croniter's next `n` runs of a crontab line at or after `after` (empty: never)."""
    from croniter import CroniterBadDateError, croniter

    # croniter's next run is strictly after its start; condorx's run may be on `after`
    # itself when that is a whole minute, so croniter starts one second earlier.
    start = datetime.fromtimestamp(after - 1, ZoneInfo(zone))
    it = croniter(line, start, day_or=True)
    try:
        return [int(it.get_next(float)) for _ in range(n)]
    except CroniterBadDateError:
        return []
