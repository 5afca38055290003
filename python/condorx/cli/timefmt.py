"""How the tools print times, as HTCondor's do: `11/23 04:09` dates and `0+01:02:03`
durations."""

from __future__ import annotations

import functools
import time
from typing import Any


@functools.lru_cache(maxsize=4096)
def short_date(t: Any, missing: str = "?") -> str:
    # Jobs of one submission share their QDate: format each second once.
    if not isinstance(t, int | float) or isinstance(t, bool):
        return missing
    return time.strftime("%m/%d %H:%M", time.localtime(t))


def duration(secs: Any) -> str:
    """Days+hours:minutes:seconds; anything not a number counts as zero."""
    s = int(secs) if isinstance(secs, int | float) else 0
    return f"{s // 86400}+{s % 86400 // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"
