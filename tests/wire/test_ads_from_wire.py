"""Ads from the wire in one call into the core (`wire.ads_from_wire`, the collector's path
for an update's thousands of ads, and `wire.ad_from_wire`, every daemon's for one) give
the very ads the attribute-by-attribute reading (`wire.read_ad`) gives, and a malformed
ad gets that reading's error, naming the ad."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorx import wire
from condorx.classad import ClassAd

NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
EXPRS = st.sampled_from(
    [
        "TARGET.Memory >= 1024 && MY.Cpus > 0",
        "ifThenElse(x, 1, 2)",
        '{ 1, 2, "a" }',
        "[ a = 1; b = a + 1 ]",
        "error",
        "undefined",
        "12",
        'strcat("x", Name)',
    ]
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    EXPRS.map(wire.Expr),
)
ADS = st.dictionaries(NAMES, VALUES, max_size=12)


def same(a: ClassAd, b: ClassAd) -> bool:
    return a.printOld() == b.printOld() and sorted(a.keys()) == sorted(b.keys())


@settings(max_examples=300, deadline=None)
@given(st.lists(ADS, max_size=6))
def test_the_one_call_reads_every_ad_as_the_attribute_by_attribute_reading_does(maps):
    fast = wire.ads_from_wire(maps)
    slow = [wire.read_ad(m) for m in maps]
    assert len(fast) == len(slow)
    assert all(same(f, s) for f, s in zip(fast, slow, strict=True))
    assert all(same(wire.ad_from_wire(m), s) for m, s in zip(maps, slow, strict=True))


def test_ads_that_repeat_an_expression_each_have_it():
    policy = wire.Expr("START && (TARGET.RequestMemory <= MY.Memory)")
    maps = [{"Name": f"slot{i}", "Requirements": policy, "Memory": i} for i in range(3)]
    ads = wire.ads_from_wire(maps)
    assert [str(a.lookup("Requirements")) for a in ads] == [policy.text] * 3
    assert [a["Memory"] for a in ads] == [0, 1, 2]


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ({"bad name": 1}, "ad 1: bad attribute name 'bad name'"),
        ({"a": wire.Expr("1 +")}, "ad 1: attribute a:"),
        ({"a": [1, 2]}, "ad 1: attribute a: unsupported value list"),
        ({"a": 2**70}, "ad 1: attribute a:"),
        ("not a map", "ad 1: expected a map of attributes"),
    ],
)
def test_a_malformed_ad_gets_the_error_that_names_it(bad: Any, said: str):
    with pytest.raises(wire.WireError) as e:
        wire.ads_from_wire([{"a": 1}, bad])
    assert said in str(e.value)


def test_an_integer_past_64_bits_is_not_silently_changed():
    # msgpack carries unsigned 64-bit integers; a ClassAd integer is signed.
    with pytest.raises(wire.WireError):
        wire.ads_from_wire([{"a": 2**63}])
