"""Literals: integers, reals, strings with escapes, booleans, UNDEFINED/ERROR, lists, ads."""

from __future__ import annotations

import math

import pytest

from condorx.classad import ClassAd, ExprTree, Value


@pytest.mark.parametrize(
    "text,value",
    [
        ("42", 42),
        ("-9223372036854775808", -(2**63)),
        ("99999999999999999999", 0),  # out of range: HTCondor reads 0
        (".5", 0.5),
        ("1.5e3", 1500.0),
        ("-0.0", -0.0),
        ('"a\\tb"', "a\tb"),
        ('"\\101\\102"', "AB"),
        ('"x" "y"', "xy"),
        ("TrUe", True),
        ("false", False),
    ],
)
def test_scalar_literals(text, value):
    got = ExprTree(text).eval()
    assert type(got) is type(value)
    assert got == value


def test_special_values_are_the_value_enum():
    assert ExprTree("undefined").eval() is Value.Undefined
    assert ExprTree("ERROR").eval() is Value.Error


def test_special_reals():
    assert math.isinf(ExprTree("1e400").eval())
    assert ExprTree("-1e400").eval() == -math.inf


def test_list_items_convert_natively():
    got = ExprTree('{ 1, "a", 2.5, true, undefined, { 2 }, [ q = 1 ] }').eval()
    assert got[:5] == [1, "a", 2.5, True, Value.Undefined]
    assert got[5] == [2]
    assert isinstance(got[6], ClassAd) and got[6]["q"] == 1


def test_unevaluated_list_item_is_an_exprtree():
    (item,) = ExprTree("{ 1 + 1 }").eval()
    assert isinstance(item, ExprTree)
    assert str(item) == "1 + 1"
    assert item.eval() == 2
