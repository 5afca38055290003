"""if / elif / else / endif in a transform, judged as each job is transformed (HTCondor
reads a transform's lines with its configuration's conditionals, its Parse_macros with
the job ad as MY). The first case is the very block HTCondor's job router conversion
writes (xform_utils.cpp, for a route's minWallTime)."""

from __future__ import annotations

import logging
import re

import pytest

from condorx.classad import ClassAd
from condorx.language.transform.apply import apply
from condorx.language.transform.statements import TransformError, parse

MIN_WALL_TIME = "\n".join(
    [
        "minWallTime = 5",
        "if defined MY.OnExitHold",
        "  COPY OnExitHold orig_OnExitHold",
        "  SET OnExitHold orig_OnExitHold || OnExitHoldMinWallTime",
        "else",
        "  SET OnExitHold ifThenElse(RemoteWallClockTime isnt undefined,"
        " RemoteWallClockTime < 60*$(minWallTime), false)",
        "  SET OnExitHoldSubCode 42",
        "endif",
    ]
)


def shown(ad: ClassAd) -> dict[str, str]:
    return {k: str(ad.lookup(k)) for k in sorted(ad.keys())}


def test_the_routers_min_wall_time_block_keeps_a_jobs_own_hold():
    held, plain = ClassAd({"OnExitHold": True}), ClassAd()
    t = parse(MIN_WALL_TIME)
    assert apply(t, held) == {"OnExitHold", "orig_OnExitHold"}
    assert shown(held) == {
        "OnExitHold": "orig_OnExitHold || OnExitHoldMinWallTime",
        "orig_OnExitHold": "true",
    }
    assert apply(t, plain) == {"OnExitHold", "OnExitHoldSubCode"}
    assert shown(plain) == {
        "OnExitHold": "ifThenElse(RemoteWallClockTime isnt undefined,"
        "RemoteWallClockTime < 60 * 5,false)",
        "OnExitHoldSubCode": "42",
    }


def test_elif_takes_the_first_true_branch_and_nests():
    t = parse(
        'if $(MY.Big)\n SET Size "big"\nelif defined MY.Small\n SET Size "small"\n'
        '  if $(MY.Small)\n   SET Tiny true\n  endif\nelse\n SET Size "unknown"\nendif\n'
    )
    big, small, neither = ClassAd({"Big": 1}), ClassAd({"Big": 0, "Small": 1}), ClassAd()
    for ad in (big, small, neither):
        apply(t, ad)
    assert (big.get("Size"), small.get("Size"), neither.get("Size")) == ("big", "small", "unknown")
    assert small.get("Tiny") is True and "Tiny" not in big


def test_a_condition_in_a_branch_not_taken_is_not_judged(caplog):
    t = parse("if false\n if a && b\n  SET X 1\n endif\nendif\nSET Y 2\n")
    ad = ClassAd()
    with caplog.at_level(logging.ERROR, "condorx.transform"):
        assert apply(t, ad) == {"Y"}
    assert caplog.text == ""


def test_a_condition_htcondor_refuses_is_named_and_taken_as_false(caplog):
    t = parse("NAME Odd\nif MY.A == 1\n SET X 1\nelse\n SET X 2\nendif\n")
    ad = ClassAd({"A": 1})
    with caplog.at_level(logging.ERROR, "condorx.transform"):
        apply(t, ad)
    assert ad.get("X") == 2
    assert "transform Odd line 2: IF MY.A == 1 is not a valid if condition" in caplog.text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("SET A 1\nendif\n", "line 2: endif without a matching if"),
        ("else\n", "line 1: else without a matching if"),
        ("if true\nSET A 1\n", "endif(s) not found before the end of the transform"),
    ],
)
def test_unbalanced_conditionals_are_refused_where_they_are(text, said):
    with pytest.raises(TransformError, match=re.escape(said)):
        parse(text, "T")
