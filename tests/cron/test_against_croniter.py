"""The core's next-run calculation against croniter, an independent and widely used cron
library, over random schedules and start times: both must agree on the next few runs,
and on which schedules never run.

croniter ORs day of month with day of week when both are restricted (day_or, the default),
as HTCondor does; where its reading of a field differs from HTCondor's, the field is
rewritten into words croniter reads as HTCondor does (condorx.testing.croniter_peer). Zones
without daylight saving keep the comparison about the calendar; the core's handling of
clock changes is checked by hand-written vectors (rust/cron/tests/vectors/next_run.txt).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorx.language.cron import CronSpec, next_runs
from condorx.testing.croniter_peer import RANGES, croniter_runs, for_croniter

pytest.importorskip("croniter")
ZONES = ["UTC", "Asia/Kolkata", "Asia/Tokyo"]
# 2000-01-01 to 2060-01-01.
STARTS = st.integers(min_value=946_684_800, max_value=2_840_140_800)


@st.composite
def _term(draw: st.DrawFn, lo: int, hi: int) -> str:
    kind = draw(st.sampled_from(["star", "number", "range", "step", "range-step"]))
    if kind == "star":
        return "*"
    a = draw(st.integers(lo, hi))
    if kind == "number":
        return str(a)
    b = draw(st.integers(a, hi))
    step = draw(st.integers(1, max(1, hi - lo)))
    if kind == "range":
        return f"{a}-{b}"
    if kind == "step":
        return f"*/{step}"
    return f"{a}-{b}/{step}"


@st.composite
def _field(draw: st.DrawFn, lo: int, hi: int) -> str:
    terms = draw(st.lists(_term(lo, hi), min_size=1, max_size=3))
    if "*" in terms:  # croniter reads `*` only on its own, which is what it means anyway
        return "*"
    return ",".join(terms)


SPECS = st.tuples(*(_field(lo, hi) for lo, hi in RANGES)).map(lambda f: CronSpec(*f))


def _croniter_runs(spec: CronSpec, after: int, n: int, zone: str) -> list[int]:
    return croniter_runs(for_croniter(spec), after, n, zone)


@settings(max_examples=600, deadline=None)
@given(spec=SPECS, after=STARTS, zone=st.sampled_from(ZONES))
def test_next_runs_agree_with_croniter(spec: CronSpec, after: int, zone: str) -> None:
    ours = next_runs(spec, after, 3, zone)
    theirs = _croniter_runs(spec, after, 3, zone)
    if not theirs:  # never runs (the 31st of February): condorx must say so too
        assert ours == [], f"{spec}: croniter finds no run, condorx {ours}"
    else:
        assert ours == theirs, f"{spec} after {after} in {zone}"


@pytest.mark.parametrize(
    ("spec", "after"),
    [
        ("0 0 29 2 *", 1_709_251_200),  # after Feb 29 2024: next leap day is 2028
        ("*/10,*/6 0-11 18 1 *", 1_700_000_000),  # the manual's step mix
        ("30 20 10-20 5 2", 1_714_521_600),  # the manual's either-day example, May 2024
        ("59 23 31 * 0-7", 1_706_745_600),  # month ends; 0-7 restricts nothing
    ],
)
def test_landmark_schedules_agree_with_croniter(spec: str, after: int) -> None:
    s = CronSpec.from_text(spec)
    assert next_runs(s, after, 5, "UTC") == _croniter_runs(s, after, 5, "UTC")
