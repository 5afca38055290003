"""How the tools print times, as HTCondor's do: `11/23 04:09` dates and `0+01:02:03`
durations, and the fixed-width forms of HTCondor's format_time.cpp (condor_userlog,
condor_userprio, condor_who)."""

from __future__ import annotations

import functools
import time

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
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


def format_date(t: float) -> str:
    """`%2d/%-2d %02d:%02d`: month/day hour:minute, local time (HTCondor's format_date)."""
    if t < 0:
        return "    ???    "
    lt = time.localtime(t)
    return f"{lt.tm_mon:2d}/{lt.tm_mday:<2d} {lt.tm_hour:02d}:{lt.tm_min:02d}"


def format_date_year(t: float) -> str:
    """`%2d/%02d/%-4d %02d:%02d` (HTCondor's format_date_year)."""
    lt = time.localtime(t)
    return f"{lt.tm_mon:2d}/{lt.tm_mday:02d}/{lt.tm_year:<4d} {lt.tm_hour:02d}:{lt.tm_min:02d}"


def format_time(secs: float) -> str:
    """`%3d+%02d:%02d:%02d` (HTCondor's format_time)."""
    s = int(secs)
    return f"{s // 86400:3d}+{s % 86400 // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def format_time_nosecs(secs: float) -> str:
    """`%3d+%02d:%02d`, or `[?????]` for a negative time (HTCondor's format_time_nosecs)."""
    s = int(secs)
    if s < 0:
        return "[?????]"
    return f"{s // 86400:3d}+{s % 86400 // 3600:02d}:{s % 3600 // 60:02d}"
