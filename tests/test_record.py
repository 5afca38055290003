"""`condorx.record` against the standard library's `dataclasses`, its oracle: the same
class body, made both ways, must build, show, compare, hash, refuse and copy alike."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorx import record as rec

# A field's shape: (default kind, compare, repr); default kind is None (required),
# "value" (an int default) or "factory" (a list factory).
FieldShape = tuple[str | None, bool, bool]
field_shapes = st.lists(
    st.tuples(st.sampled_from([None, "value", "factory"]), st.booleans(), st.booleans()),
    max_size=5,
).map(lambda fs: sorted(fs, key=lambda f: f[0] is not None))  # required ones first
options = st.fixed_dictionaries(
    {"frozen": st.booleans(), "eq": st.booleans(), "slots": st.booleans()}
)


def _body(shapes: list[FieldShape], make_field: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"__annotations__": {}}
    for i, (default, compare, show) in enumerate(shapes):
        name = f"f{i}"
        body["__annotations__"][name] = "Any"
        if default == "value":
            body[name] = make_field(default=i * 10, compare=compare, repr=show)
        elif default == "factory":
            body[name] = make_field(default_factory=list, compare=compare, repr=show)
        elif not (compare and show):
            body[name] = make_field(compare=compare, repr=show)
    body["__annotations__"]["kind"] = "ClassVar[str]"
    body["kind"] = "not a field"
    return body


def _both(shapes: list[FieldShape], opts: dict[str, bool]) -> tuple[type, type]:
    oracle = dataclasses.dataclass(**opts)(type("C", (), _body(shapes, dataclasses.field)))
    ours = rec.record(**opts)(type("C", (), _body(shapes, rec.field)))
    return oracle, ours


def _outcome(f: Any) -> Any:
    """What `f()` gives, or the kind of exception it raises."""
    try:
        return ("value", f())
    except Exception as e:  # the exception's kind is what is compared
        return ("raised", AttributeError if isinstance(e, AttributeError) else type(e))


@settings(max_examples=150, deadline=None)
@given(field_shapes, options, st.lists(st.integers(0, 3), max_size=7), st.data())
def test_a_record_behaves_as_the_dataclass_of_the_same_body(shapes, opts, args, data):
    oracle, ours = _both(shapes, opts)
    names = [f"f{i}" for i in range(len(shapes))]
    assert [f.name for f in dataclasses.fields(oracle)] == [f.name for f in rec.fields(ours)]
    assert oracle.__match_args__ == ours.__match_args__
    keywords = data.draw(st.dictionaries(st.sampled_from([*names, "nope"]), st.integers(0, 3)))
    made = [_outcome(lambda c=c: c(*args, **keywords)) for c in (oracle, ours)]
    assert [m[0] for m in made] == ["value", "value"] or made[0] == made[1]
    if made[0][0] != "value":
        return
    a, b = made[0][1], made[1][1]
    assert repr(a) == repr(b)
    twin_a, twin_b = oracle(*args, **keywords), ours(*args, **keywords)
    assert (a == twin_a) == (b == twin_b)
    assert (a == 5) == (b == 5)
    assert _outcome(lambda: hash(a) == hash(twin_a))[0] == _outcome(lambda: hash(b))[0]
    for name in ("f0", "other"):
        expected = _outcome(lambda n=name: setattr(a, n, 9))
        if opts["frozen"] and opts["slots"] and expected == ("raised", TypeError):
            # Python 3.11's frozen slotted dataclass calls super() with the class it
            # replaced, a TypeError for any name that is not a field (fixed in 3.12).
            expected = ("raised", AttributeError)
        assert _outcome(lambda n=name: setattr(b, n, 9)) == expected
    assert hasattr(a, "__dict__") == hasattr(b, "__dict__")
    assert oracle.kind == ours.kind == "not a field"
    if names:
        changed_a, changed_b = dataclasses.replace(a, f0=7), rec.replace(b, f0=7)
        assert repr(changed_a) == repr(changed_b)


def test_a_field_with_a_default_after_none_is_refused_as_dataclasses_refuses_it():
    body = {"__annotations__": {"a": "int", "b": "int"}, "a": 1}
    with pytest.raises(TypeError):
        dataclasses.dataclass(type("C", (), dict(body)))
    with pytest.raises(TypeError, match="'b' follows default"):
        rec.record(type("C", (), dict(body)))


def test_a_mutable_default_is_refused():
    with pytest.raises(ValueError, match="field a"):
        rec.record(type("C", (), {"__annotations__": {"a": "list"}, "a": []}))


@rec.record(frozen=True)
class Base:
    a: int
    b: str = "b"


@rec.record(frozen=True)
class Child(Base):
    c: float = 1.0
    shared: ClassVar[int] = 3

    def __post_init__(self) -> None:
        object.__setattr__(self, "c", self.c * 2)


def test_fields_are_inherited_and_post_init_runs():
    child = Child(1, c=2.0)
    assert (child.a, child.b, child.c) == (1, "b", 4.0)
    assert [f.name for f in rec.fields(Child)] == ["a", "b", "c"]
    assert repr(child) == "Child(a=1, b='b', c=4.0)"
    assert child != Base(1)  # another class is never equal, as with dataclasses
    assert hash(child) == hash(Child(1, c=2.0))
    with pytest.raises(rec.FrozenInstanceError):
        child.a = 2  # type: ignore[misc]


def test_a_record_pickles():
    child = Child(1, "x", 0.5)
    assert pickle.loads(pickle.dumps(child)) == child


def test_fields_of_something_else_is_a_type_error():
    with pytest.raises(TypeError, match="not a record"):
        rec.fields(5)


def test_a_mutable_records_own_setattr_runs_in_init_as_a_dataclasss_does():
    seen: list[str] = []

    def watched(self: object, name: str, value: object) -> None:
        seen.append(name)
        object.__setattr__(self, name, value)

    def body() -> dict[str, Any]:
        return {"__annotations__": {"a": "int", "b": "int"}, "b": 2, "__setattr__": watched}

    dataclasses.dataclass(type("D", (), body()))(1)
    rec.record(type("R", (), body()))(1)
    assert seen == ["a", "b", "a", "b"]
