"""Bad input: clear errors with line and column, never a crash."""

from __future__ import annotations

import pytest

from condorx import ClassAdParseError
from condorx.classad import ClassAd, ExprTree, ParserType, parseAds


@pytest.mark.parametrize("text", ["", "1 +", "(1", "{1,}", "[a = 1, b = 2]", "010", '"abc'])
def test_parse_errors_raise(text):
    with pytest.raises(ClassAdParseError):
        ExprTree(text)


def test_error_names_line_and_column():
    with pytest.raises(ClassAdParseError) as info:
        ClassAd("[\n  a = 1;\n  b = 2 +\n]")
    e = info.value
    assert (e.line, e.column) == (4, 1)
    assert e.attribute == "b"
    assert "line 4, column 1" in str(e)


def test_old_syntax_error_names_the_attribute():
    # HTCondor would silently drop B and what follows it in the ad; condorx refuses.
    with pytest.raises(ClassAdParseError) as info:
        list(parseAds("A = 1\nB = (2\nC = 3\n", ParserType.Old))
    assert info.value.attribute == "B"
    assert info.value.line == 2
    with pytest.raises(ClassAdParseError) as info:
        list(parseAds("A = 1\n\nB = (2\n\nC = 3\n", ParserType.Old))
    assert info.value.attribute == "B"
    assert info.value.line == 3


@pytest.mark.parametrize("opener,closer", [("(", ")"), ("{", "}"), ("[a=", "]"), ("-", "")])
def test_deep_nesting_is_refused_not_a_crash(opener, closer):
    text = opener * 100_000 + "1" + closer * 100_000
    with pytest.raises(ClassAdParseError, match="nested too deeply"):
        ExprTree(text)


def test_unknown_function_evaluates_to_error():
    from condorx.classad import Value

    assert ExprTree("noSuchFunction(1)").eval() is Value.Error


def test_deep_input_on_a_small_thread_stack():
    # Trio worker threads and embedded interpreters may have small stacks; the engine
    # moves deep recursion onto the heap instead of overflowing them.
    import threading

    results = []

    def work():
        chain = " || ".join(f'(Machine == "m{k}")' for k in range(5000))
        ad = ClassAd('[ Machine = "m4999" ]')
        results.append(ExprTree(chain).eval(scope=ad))
        nested = "(" * 150 + "1" + ")" * 150
        results.append(ExprTree(nested).eval())

    old = threading.stack_size(256 * 1024)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert results == [True, 1]


def test_deeply_nested_python_data_is_refused():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    ad = ClassAd()
    with pytest.raises(ValueError, match="nested more than"):
        ad["x"] = deep
    assert "x" not in ad
