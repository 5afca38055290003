"""Operators: precedence, three-valued logic, strictness, is/isnt, integer vs real."""

from __future__ import annotations

import pytest

from condorx.classad import ExprTree, Value

U, E = Value.Undefined, Value.Error


@pytest.mark.parametrize(
    "text,value",
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("7 / 2", 3),
        ("-7 / 2", -3),
        ("-7 % 3", -1),
        ("7 / 2.0", 3.5),
        ("1 / 0", E),
        ("-1.0 / 0", float("-inf")),
        ("1 << 64", 1),
        ("-8 >>> 1", 9223372036854775804),
        ("true ? 1 : 2", 1),
        ("undefined ?: 5", 5),
        ('"abc" == "ABC"', True),
        ('"abc" =?= "ABC"', False),
        ("1 == 1.0", True),
        ("1 is 1.0", False),
        ("undefined == 1", U),
        ("undefined is undefined", True),
        ("error == error", E),
        ("false && error", False),
        ("true || error", True),
        ("undefined && false", False),
        ("undefined || true", True),
        ("undefined && true", U),
        ('"x" && true', E),
        ('"a" + 1', E),
        ("1 < 2 == true", True),
        ("2 ^ 3 & 1", 3),
    ],
)
def test_operator(text, value):
    got = ExprTree(text).eval()
    if isinstance(value, Value):
        assert got is value
    else:
        assert type(got) is type(value) and got == value


def test_integer_overflow_wraps_like_cpp():
    assert ExprTree("9223372036854775807 + 1").eval() == -(2**63)
    assert ExprTree("-9223372036854775808 / -1").eval() == 2**63 - 1
