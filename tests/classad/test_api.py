"""The classad2-shaped Python API: mapping behaviour, lookup, eval, matching, parsing."""

from __future__ import annotations

import datetime
import json

from condorx.classad import (
    ClassAd,
    ExprTree,
    ParserType,
    Value,
    parseAds,
    parseOne,
    quote,
    unquote,
)


def test_mapping():
    ad = ClassAd()
    ad["Memory"] = 1024
    ad["Name"] = "slot1"
    ad["Ratio"] = 0.5
    ad["Ok"] = True
    ad["Req"] = ExprTree("Memory > 512")
    ad["Nested"] = {"a": 1}
    assert len(ad) == 6
    assert "memory" in ad
    assert ad["Req"].eval() is True
    assert ad.eval("Req") is True
    assert ad["Nested"]["a"] == 1
    del ad["Ratio"]
    assert "Ratio" not in ad
    assert ad.get("Ratio", 7) == 7


def test_lookup_keeps_its_ad():
    ad = ClassAd("[ a = 2; b = a * 3 ]")
    assert str(ad.lookup("b")) == "a * 3"
    assert ad.lookup("b").eval() == 6


def test_copy_on_write():
    a = ClassAd("[ x = 1 ]")
    b = a.copy()
    b["x"] = 2
    assert a["x"] == 1 and b["x"] == 2


def test_matches_is_requirements_of_the_other_ad():
    job = ClassAd("[ RequestMemory = 2048; Requirements = TARGET.Memory >= MY.RequestMemory ]")
    slot = ClassAd("[ Memory = 1024; Requirements = true ]")
    assert job.matches(slot) is True  # the slot accepts the job
    assert slot.matches(job) is False  # the job rejects the slot
    assert job.symmetricMatch(slot) is False


def test_parse_ads_both_syntaxes():
    old = list(parseAds('A = 1\nB = "x"\n\nA = 2\n', ParserType.Old))
    assert [a["A"] for a in old] == [1, 2]
    new = list(parseAds("[ a = 1 ] [ a = 2 ]", ParserType.New))
    assert [a["a"] for a in new] == [1, 2]
    assert parseOne("A = 1\n\nB = 2\n")["B"] == 2


def test_print_old_roundtrips():
    ad = ClassAd('[ a = 1; b = "x\\ty"; c = a + 1 ]')
    (back,) = parseAds(ad.printOld(), ParserType.Old)
    assert back == ad


def test_quote_unquote():
    assert quote('a"b') == '"a\\"b"'
    assert unquote(quote("tab\there")) == "tab\there"


def test_times_convert_to_datetime():
    got = ExprTree('absTime("2020-01-01T00:00:00+02:00")').eval()
    assert got == datetime.datetime(2019, 12, 31, 22, tzinfo=datetime.UTC)
    assert got.utcoffset() == datetime.timedelta(hours=2)
    assert ExprTree('relTime("1+01:00:00")').eval() == 90000.0
    ad = ClassAd()
    ad["When"] = got
    assert ad.eval("When") == got


def test_json_and_refs():
    ad = ClassAd('[ a = 1; b = "x"; c = a + 1; d = { 1, 2.5 }; e = undefined ]')
    assert json.loads(ad.printJson()) == {
        "a": 1,
        "b": "x",
        "c": "/Expr(a + 1)/",
        "d": [1, 2.5],
        "e": None,
    }
    req = ExprTree('TARGET.Memory >= c && Arch == "X86_64"')
    assert ad.externalRefs(req) == ["TARGET.Memory", "Arch"]
    assert ad.internalRefs(req) == ["c", "a"]


def test_pop():
    ad = ClassAd("[ a = 1; b = 2 ]")
    assert ad.pop("a") == 1
    assert ad.pop("zz", 5) == 5
    assert ad.popitem() == ("b", 2)
    assert len(ad) == 0


def test_simplify():
    ad = ClassAd("[ a = 2; b = a * 3 ]")
    assert str(ExprTree("a + 1").simplify(ad)) == "3"
    assert str(ad.lookup("b").simplify()) == "6"
    assert ExprTree("nope").simplify().eval() is Value.Undefined


def test_pickle_round_trip():
    import pickle

    ad = ClassAd('[ a = 1; b = "x\\ty"; c = { 1, a + 0.1 }; d = [ e = TARGET.f ] ]')
    assert pickle.loads(pickle.dumps(ad)) == ad
    e = ExprTree("x ?: y[-2] + 1")
    assert pickle.loads(pickle.dumps(e)).sameAs(e)


def test_getitem_gives_literals_as_values():
    ad = ClassAd('[ l = { 1, "a", { 2 }, x }; n = [ a = 1 ]; e = 1 + 1; u = undefined ]')
    items = ad["l"]
    assert items[:3] == [1, "a", [2]] and isinstance(items[3], ExprTree)
    assert ad["n"]["a"] == 1
    assert isinstance(ad["e"], ExprTree) and ad["e"].eval() == 2
    assert ad["u"] is Value.Undefined


def test_print_old_writes_meta_operators_as_htcondors_old_syntax():
    """HTCondor's old-ad unparser has no `is`/`isnt`: it writes `=?=` and `=!=` (what
    classad2's printOld and every condor_q -long show)."""
    ad = ClassAd({"R": ExprTree('Foo =?= "x" && (B =!= 1 || C is D)')})
    assert ad.printOld() == 'R = Foo =?= "x" && (B =!= 1 || C =?= D)\n'
    assert str(ad.lookup("R")) == 'Foo is "x" && (B isnt 1 || C is D)'
