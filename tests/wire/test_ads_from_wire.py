"""Ads from the wire in one call into the core (`wire.ads_from_wire` from wire maps,
`wire.ads_from_packed` from one msgpack body, the collector's path for an update's
thousands of ads; `wire.ad_from_wire`, every daemon's for one; `PackedAd`, the form a
schedd keeps a claimed slot's ad in) give the very ads an attribute-by-attribute reading
through the ClassAd API gives (`reference` below), and a malformed ad gets an error
naming the ad and the attribute."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorx import _core
from condorx.classad import ClassAd, ExprTree, Value
from condorx.transport import wire
from condorx.transport.packed_ad import PackedAd

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


def reference(m: dict[str, Any]) -> ClassAd:
    """The ad a wire map stands for, set attribute by attribute through the ClassAd API."""
    ad = ClassAd()
    for name, v in m.items():
        if isinstance(v, wire.Expr):
            ad[name] = ExprTree(v.text)
        elif v is None:
            ad[name] = Value.Undefined
        else:
            ad[name] = v
    return ad


def same(a: ClassAd, b: ClassAd) -> bool:
    return a.printOld() == b.printOld() and sorted(a.keys()) == sorted(b.keys())


@settings(max_examples=300, deadline=None)
@given(st.lists(ADS, max_size=6))
def test_the_one_call_reads_every_ad_as_the_attribute_by_attribute_reading_does(maps):
    fast = wire.ads_from_wire(maps)
    slow = [reference(m) for m in maps]
    assert len(fast) == len(slow)
    assert all(same(f, s) for f, s in zip(fast, slow, strict=True))
    assert all(same(wire.ad_from_wire(m), s) for m, s in zip(maps, slow, strict=True))
    packed = wire.ads_from_packed(wire.pack_ads(maps))
    assert len(packed) == len(slow)
    assert all(same(p, s) for p, s in zip(packed, slow, strict=True))


@settings(max_examples=200, deadline=None)
@given(ADS)
def test_an_ad_kept_packed_reads_back_as_the_ad_it_was(m):
    kept = PackedAd.from_wire(m, "slot ad")
    assert same(kept.ad(), reference(m))
    assert kept.ad() is not kept.ad()  # each reader has its own copy to change


def test_an_ad_kept_packed_is_checked_when_it_is_kept():
    with pytest.raises(wire.WireError) as e:
        PackedAd.from_wire({"Name": "slot1", "Start": wire.Expr("1 +")}, "slot ad")
    assert "slot ad: attribute Start: expression does not parse" in str(e.value)


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
        ({"a": wire.Expr("1 +")}, "ad 1: attribute a: expression does not parse"),
        ({"a": [1, 2]}, "ad 1: attribute a: unsupported value list"),
        ({"a": 2**70}, "ad 1: attribute a: integer past 64 signed bits"),
        ("not a map", "ad 1: expected a map of attributes, got "),
    ],
)
def test_a_malformed_ad_gets_the_error_that_names_it(bad: Any, said: str):
    with pytest.raises(wire.WireError) as e:
        wire.ads_from_wire([{"a": 1}, bad])
    assert said in str(e.value)
    if bad == {"a": 2**70}:
        return  # past what msgpack carries: no peer can send it in a packed body
    with pytest.raises(wire.WireError) as e:
        wire.ads_from_packed(wire.pack_ads([{"a": 1}, bad]))
    assert said in str(e.value)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (wire.dumps({"a": 1}), "ads: expected a list of ads, got map"),
        (wire.pack_ads([{"a": 1}])[:-1], "ad 0: attribute a: malformed message"),
        (wire.pack_ads([{"a": 1}]) + b"\xc0", "ads: malformed message"),
        (b"\xdd\xff\xff\xff\xff", "ad 0: malformed message"),  # claims 4 billion ads
        (wire.dumps([{"a": b"bytes"}]), "ad 0: attribute a: unsupported value bytes"),
        (wire.dumps([{7: 1}]), "ad 0: bad attribute name: integer is not a string"),
    ],
)
def test_a_packed_body_that_is_not_plain_gets_an_error_naming_what_is_wrong(body, said):
    with pytest.raises(wire.WireError) as e:
        wire.ads_from_packed(body)
    assert said in str(e.value)


@settings(max_examples=500, deadline=None)
@given(st.lists(ADS, min_size=1, max_size=3), st.data())
def test_a_packed_body_cut_or_mangled_anywhere_is_an_error_or_the_ads_it_spells(maps, data):
    body = bytearray(wire.pack_ads(maps))
    at = data.draw(st.integers(0, len(body) - 1))
    if data.draw(st.booleans()):
        body[at] = data.draw(st.integers(0, 255))
    else:
        del body[at:]
    try:
        ads = wire.ads_from_packed(bytes(body))
    except wire.WireError:
        return
    # What was read is what the ClassAd API makes of msgpack's own reading of the bytes.
    slow = [reference(m) for m in wire.unpack(bytes(body))]
    assert all(same(a, s) for a, s in zip(ads, slow, strict=True))


def test_an_integer_past_64_bits_is_not_silently_changed():
    # msgpack carries unsigned 64-bit integers; a ClassAd integer is signed.
    with pytest.raises(wire.WireError):
        wire.ads_from_wire([{"a": 2**63}])


@settings(max_examples=300, deadline=None)
@given(st.lists(ADS, max_size=6))
def test_ads_written_in_the_core_are_the_wire_maps_python_writes(maps):
    ads = [reference(m) for m in maps]
    body = _core.ads_to_msgpack(ads)
    assert wire.unpack(body) == [wire.ad_to_wire(ad) for ad in ads]
    back = wire.ads_from_packed(body)
    assert all(same(b, a) for b, a in zip(back, ads, strict=True))


def test_every_packed_ad_gets_the_stamp_on_either_reading():
    stamp = ClassAd()
    stamp["LastHeardFrom"] = 7
    stamp["AuthenticatedIdentity"] = "condor"
    plain = wire.pack_ads([{"Name": "a", "LastHeardFrom": 1}, {"Name": "b"}])
    # An expression's text that is not UTF-8: read with U+FFFD for the bad byte.
    odd = msgpack.packb([{"Name": "c", "Note": msgpack.ExtType(1, b'"\xff"')}])
    assert wire.ads_from_packed(odd)[0]["Note"] == "\ufffd"
    for body in (plain, odd):
        ads = wire.ads_from_packed(body, stamp=stamp)
        assert [(a["LastHeardFrom"], a["AuthenticatedIdentity"]) for a in ads] == [
            (7, "condor")
        ] * len(ads)
