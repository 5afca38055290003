"""Attribute references: case, MY/TARGET, nested ads, subscripts, cycles."""

from __future__ import annotations

from condorx.classad import ClassAd, ExprTree, Value

MY = ClassAd("[ i = 3; l = { 1, 2, 3 }; n = [ x = 5; y = x + i; w = MY.i ]; self = self + 1 ]")
TARGET = ClassAd("[ c = 4; i = 30; back = MY.i; ti = i ]")


def ev(text, my=MY, target=TARGET):
    return ExprTree(text).eval(scope=my, target=target)


def test_case_insensitive_names_keep_spelling():
    ad = ClassAd("[ RequestMemory = 2048 ]")
    assert ad["requestmemory"] == 2048
    assert list(ad.keys()) == ["RequestMemory"]


def test_my_then_target():
    assert ev("i") == 3
    assert ev("c") == 4  # not in MY: looked up in TARGET
    assert ev("TARGET.i") == 30
    assert ev("TARGET.back") == 30  # MY inside TARGET is TARGET
    assert ev("MY.c") is Value.Undefined


def test_nested_ads_see_their_parents():
    assert ev("n.y") == 8
    assert ev("n.w") == 3
    assert ev("n.parent.i") == 3


def test_subscripts():
    assert ev("l[1]") == 2
    assert ev("l[3]") is Value.Error
    assert ev('n["x"]') == 5


def test_self_reference_is_undefined_not_a_hang():
    assert ev("self") is Value.Undefined
    loop = ClassAd("[ a = b + 1; b = a + 1 ]")
    assert loop.eval("a") is Value.Undefined


def test_exponential_expression_is_bounded():
    # a0 .. a60, each twice its predecessor: 2**60 steps without a guard.
    attrs = "; ".join([f"a{k} = a{k - 1} + a{k - 1}" for k in range(1, 61)])
    ad = ClassAd(f"[ a0 = 1; {attrs} ]")
    assert ad.eval("a60") is Value.Error


def test_long_attribute_chain_is_bounded():
    attrs = "; ".join(f"a{k} = a{k + 1} + 1" for k in range(100_000))
    ad = ClassAd(f"[ {attrs}; a100000 = 0 ]")
    assert ad.eval("a99990") == 10
    assert ad.eval("a0") is Value.Error
