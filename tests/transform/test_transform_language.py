"""The transform language (JOB_TRANSFORM_<name>) as HTCondor's xform_utils.cpp reads and
runs it: the envelope, each keyword, regex steps, macros, and what is refused. No
HTCondor tool that runs transforms is installed here, so the expectations are read from
that source (MacroStreamXFormSource::open, ParseRulesCallback, DoRegexAttrOp)."""

from __future__ import annotations

import pytest

from condorx.classad import ClassAd, ExprTree, Value
from condorx.language.transform import TransformError, apply, matches, parse


def job(cluster: dict, proc: dict | None = None) -> ClassAd:
    """A proc chained to its cluster, as the schedd transforms it."""
    parent = ClassAd(cluster)
    ad = ClassAd(proc or {})
    ad.chain(parent)
    return ad


def own(ad: ClassAd) -> dict[str, str]:
    return {k: str(ad.lookup(k)) for k in ad.own_keys()}


def test_the_assign_accounting_group_rules_copy_evaluate_and_join():
    from condorx import _core

    _core.set_user_maps([("Groups", [("alice", False, "cs,condor")])])
    try:
        _assign_accounting_group()
    finally:
        _core.set_user_maps([])


def _assign_accounting_group() -> None:
    t = parse(
        """
        COPY Owner = AcctGroupUser
        COPY AcctGroup = RequestedAcctGroup
        EVALSET AcctGroup = usermap("Groups",AcctGroupUser,AcctGroup)
        EVALSET AccountingGroup = join(".",AcctGroup,AcctGroupUser)
        """,
        "AssignAccountingGroup",
    )
    ad = job({"Owner": "alice", "AcctGroup": "condor"})
    assert apply(t, ad) == {"AcctGroupUser", "RequestedAcctGroup", "AcctGroup", "AccountingGroup"}
    assert own(ad) == {
        "AcctGroupUser": '"alice"',
        "RequestedAcctGroup": '"condor"',
        "AcctGroup": '"condor"',  # the requested group is in alice's list
        "AccountingGroup": '"condor.alice"',
    }
    ad = job({"Owner": "alice", "AcctGroup": "physics"})
    apply(t, ad)
    assert ad["AccountingGroup"] == "cs.alice"  # not hers: the first of her list
    ad = job({"Owner": "bob"})
    apply(t, ad)
    assert ad.get("AcctGroup") is Value.Undefined and "RequestedAcctGroup" not in ad


def test_the_envelope_is_taken_out_and_name_equals_is_a_macro():
    t = parse(
        """
        NAME Given
        UNIVERSE vanilla
        REQUIREMENTS JobUniverse == 5 && Owner == "alice"
        NAME = not_the_name
        SET Seen = "$(NAME)"
        TRANSFORM
        """,
    )
    assert t.name == "Given" and t.universe == 5
    assert str(t.requirements) == 'JobUniverse == 5 && Owner == "alice"'
    assert [s.keyword for s in t.steps] == ["MACRO", "SET"]
    ad = job({"JobUniverse": 5, "Owner": "alice"})
    assert matches(t, ad)
    apply(t, ad)
    assert ad["Seen"] == "not_the_name"
    assert not matches(t, job({"JobUniverse": 5, "Owner": "bob"}))
    assert not matches(t, job({"Owner": "alice"}))  # undefined is no match
    assert parse("NAME Given", "Configured").name == "Configured"  # the knob's name wins


def test_transform_with_arguments_ends_the_rules():
    t = parse("SET A = 1\nTRANSFORM 1\nSET B = 2\n")
    assert [s.attr for s in t.steps] == ["A"]


def test_set_keeps_the_expression_evalset_its_value_default_only_when_absent():
    t = parse(
        """
        SET Expr = RequestMemory * 2
        EVALSET Value = RequestMemory * 2
        DEFAULT RequestMemory = 1
        DEFAULT Absent 7
        SET Quoted "two words"
        SET Comma, 3
        """
    )
    ad = job({"RequestMemory": 512})
    apply(t, ad)
    assert own(ad) == {
        "Expr": "RequestMemory * 2",
        "Value": "1024",
        "Absent": "7",
        "Quoted": '"two words"',
        "Comma": "3",
    }


def test_copy_rename_and_delete_through_the_chain():
    t = parse("COPY Cmd = OldCmd\nRENAME Args = Arguments\nDELETE Env\nDELETE Missing\n")
    ad = job({"Cmd": "/bin/sleep", "Env": "A=1"}, {"Args": "60"})
    changed = apply(t, ad)
    assert changed == {"OldCmd", "Arguments", "Args", "Env"}  # Missing was never there
    assert ad["OldCmd"] == "/bin/sleep" and ad["Arguments"] == "60"
    assert "Args" not in ad
    # Deleted in the proc, and its cluster's value shadowed: the proc reads undefined.
    assert own(ad)["Env"] == "undefined"


def test_regex_steps_see_the_procs_own_names_and_substitute_groups():
    t = parse("RENAME /^Request(.*)/ Asked\\1\nCOPY /^(Disk)(Usage)$/i \\2Of\\1\nDELETE /^tmp_/\n")
    ad = job(
        {"RequestDisk": 1},  # the cluster's: not iterated, as HTCondor's ad.begin()
        {"RequestCpus": 2, "RequestMemory": 3, "diskusage": 4, "TMP_x": 5},
    )
    apply(t, ad)
    assert ad.get("AskedCpus") == 2 and ad.get("AskedMemory") == 3
    assert "RequestCpus" not in ad and "RequestMemory" not in ad
    assert ad.get("UsageOfdisk") == 4
    assert "TMP_x" not in ad  # regexes match without case, always
    assert ad.get("RequestDisk") == 1


def test_macros_expand_in_order_from_the_ad_and_the_configuration():
    config = {"POOL_GROUP": "physics", "NESTED": "$(POOL_GROUP)_x"}
    t = parse(
        """
        user = $(MY.Owner)
        SET Who = "$(user)"
        SET Cmdline = "$(MY.Cmd) $(MY.Args)"
        SET FromConfig = "$(NESTED)"
        SET Expression = "$(MY.RequestMemory)"
        EVALMACRO twice = RequestMemory * 2
        SET Twice = $(twice)
        EVALMACRO text = strcat("a", "b")
        SET Text = "$(text)"
        SET Missing = "[$(NO_SUCH_MACRO)]"
        SET Defaulted = "$(NO_SUCH_MACRO:fallback)"
        """
    )
    ad2 = job({"Owner": "alice", "Cmd": "/bin/echo", "Args": "hi"}, {})
    ad2["RequestMemory"] = ExprTree("256 + 256")
    apply(t, ad2, config.get)
    assert ad2["Who"] == "alice"
    assert ad2["Cmdline"] == "/bin/echo hi"  # strings as their value
    assert ad2["FromConfig"] == "physics_x"
    assert ad2["Expression"] == "256 + 256"  # an expression as written
    assert ad2["Twice"] == 1024
    assert ad2["Text"] == "ab"
    assert ad2["Missing"] == "[]"
    assert ad2["Defaulted"] == "fallback"


def test_a_step_that_cannot_be_done_is_skipped_and_the_rest_goes_on(caplog):
    t = parse("SET Bad = (1 +\nEVALSET AlsoBad = ][\nRENAME Cmd = 9lives\nSET Good = 1\n", "T")
    ad = job({"Cmd": "x"})
    assert apply(t, ad) == {"Good"}
    assert ad["Cmd"] == "x" and ad["Good"] == 1
    assert "transform T line 1" in caplog.text and "line 3" in caplog.text


@pytest.mark.parametrize(
    "text, message",
    [
        ("FROB A = 1", "line 1: FROB is not a valid transform keyword"),
        ("SET A = 1\nSET", "line 2: SET needs an argument"),
        ("SET A =", "line 1: SET needs 2 arguments"),
        ("COPY A", "line 1: COPY needs 2 arguments"),
        ("RENAME /unclosed X", "line 1: invalid regex"),
        ("DELETE /a/q", "line 1: invalid regex flag 'q'"),
        ("DELETE /(/", "line 1: bad regex /(/: missing ), unterminated subpattern at position 0"),
        ("REQUIREMENTS (1 +", "line 1: invalid REQUIREMENTS : (1 +"),
        ("UNIVERSE marine", "line 1: UNIVERSE 'marine' is not a universe"),
        ("x @=end\nSET A = 1\n", "line 1: @=end has no closing end"),
    ],
)
def test_what_cannot_be_read_is_refused_naming_the_line(text, message):
    with pytest.raises(TransformError) as e:
        parse(text, "Named")
    assert str(e.value) == f"JOB_TRANSFORM_Named {message}"


def test_a_heredoc_macro():
    t = parse("body @=end\n  1 +\n  2\nend\nEVALSET Three = $(body)\n")
    ad = job({})
    apply(t, ad)
    assert ad["Three"] == 3
