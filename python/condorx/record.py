"""Records: classes of named fields, made as `dataclasses` makes them, without compiling
source.

`dataclasses` writes each generated method (`__init__`, `__repr__`, `__eq__`, `__hash__`,
a frozen class's `__setattr__` and `__delattr__`) as source text and compiles it when the
class is made: about 1 ms per frozen class on a 2-core machine, and importing it pulls in
`inspect` (another 10-15 ms). A command-line tool made 25 such classes before answering,
40% of its start-up (issue 30). A record's methods are closures over its fields instead:
the class is made in tens of microseconds, and an instance costs a few microseconds more.

`record` takes the same arguments as `dataclasses.dataclass` for what the project uses:
`frozen`, `eq`, `repr`, `slots`, `field(default=, default_factory=, repr=, compare=)`,
`__post_init__`, `ClassVar` annotations (not fields), and inheritance from other records.
`fields` and `replace` work as `dataclasses`' do (`replace` takes a dataclass too, so a
caller need not know which it has). mypy reads a record as a dataclass.

The modules a command-line tool imports (the wire's messages, the configuration reader,
the submit language, the CLI's own) make records; the daemons' own classes stay
dataclasses, whose instances are made faster (0.5-2 µs against 1-3.5).
"""

from __future__ import annotations

import operator

# typing's own flag, without importing typing: a tool would pay its import (4 ms here) on
# every call for names that only annotations use. mypy reads any TYPE_CHECKING so.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: Any) -> Any:
        """Marks `record` for type checkers only."""
        return lambda f: f


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """An attempt to assign to, or delete, a frozen record's field."""


class Field:
    """One field: its name, its default or default factory, and whether it is shown
    by `repr` and compared by `==` and `hash`."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(
        self, default: Any, default_factory: Any, repr: bool, compare: bool, name: str = ""
    ) -> None:
        self.name = name
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field's options, as `dataclasses.field` takes them."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, repr, compare)


@dataclass_transform(field_specifiers=(field,))
def record(
    cls: Any = None,
    /,
    *,
    frozen: bool = False,
    eq: bool = True,
    repr: bool = True,
    slots: bool = False,
) -> Any:
    """Make `cls` a record (as `@dataclass`, or `@dataclass(frozen=True, ...)`)."""

    def wrap(cls: type[T]) -> type[T]:
        return _make(cls, frozen=frozen, eq=eq, show=repr, slots=slots)

    return wrap if cls is None else wrap(cls)


def fields(obj: Any) -> tuple[Field, ...]:
    """A record's (or a record class's) fields, in order."""
    try:
        return tuple(obj.__record_fields__.values())
    except AttributeError:
        raise TypeError(f"{obj!r:.60} is not a record") from None


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of `obj` (a record, or a dataclass) with `changes`."""
    if not hasattr(type(obj), "__record_fields__"):
        import dataclasses  # only a daemon's modules make dataclasses: they have it

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    values = {f.name: getattr(obj, f.name) for f in fields(obj)}
    values.update(changes)
    return type(obj)(**values)


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _own_fields(cls: type) -> dict[str, Field]:
    """`cls`'s inherited fields, then its own (a redefined one keeps its place)."""
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        found.update(base.__dict__.get("__record_fields__", {}))
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(value, MISSING, True, True)
        f.name = name
        if type(f.default).__hash__ is None:  # as dataclasses: a list, dict or set
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed")
        if isinstance(value, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        found[name] = f
    _check_order(cls, found)
    return found


def _check_order(cls: type, found: dict[str, Field]) -> None:
    defaulted = False
    for f in found.values():
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if defaulted and not has_default:
            raise TypeError(f"{cls.__name__}: non-default argument {f.name!r} follows default")
        defaulted = defaulted or has_default


def _make(cls: Any, *, frozen: bool, eq: bool, show: bool, slots: bool) -> Any:
    found = _own_fields(cls)
    if slots:
        cls = _with_slots(cls, found)
    cls.__record_fields__ = found
    setattr(cls, "__match_args__", tuple(found))  # noqa: B010 (mypy: a class attribute)
    if "__init__" not in cls.__dict__:
        cls.__init__ = _init(cls, found, frozen)
    if show and "__repr__" not in cls.__dict__:
        cls.__repr__ = _repr(found)
    if eq and "__eq__" not in cls.__dict__:
        cls.__eq__ = _eq(found)
    if "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None:
        if eq and frozen:
            cls.__hash__ = _hash(found)
        elif eq:
            cls.__hash__ = None
    if frozen:
        cls.__setattr__, cls.__delattr__ = _frozen(cls, found)
    return cls


def _with_slots(cls: Any, found: dict[str, Field]) -> Any:
    """A copy of `cls` with a slot per field (its own, not inherited ones)."""
    body = dict(cls.__dict__)
    own = [name for name in found if name in cls.__dict__.get("__annotations__", {})]
    for name in own:
        body.pop(name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body["__slots__"] = tuple(own)
    return type(cls)(cls.__name__, cls.__bases__, body)


def _init(cls: Any, found: dict[str, Field], frozen: bool) -> Callable[..., None]:
    names = tuple(found)
    bind = _binder(cls.__qualname__, found)
    post_init = hasattr(cls, "__post_init__")
    # Without slots the values go straight into the instance's dict: a frozen record's
    # __setattr__ refuses them (a frozen dataclass's __init__ goes around it too), and
    # a mutable one's is object's own unless the class has one of its own to run.
    plain = frozen or cls.__setattr__ is object.__setattr__
    with_dict = (
        plain
        and "__slots__" not in cls.__dict__
        and all(
            "__slots__" not in base.__dict__ or "__dict__" in base.__dict__.get("__slots__", ())
            for base in cls.__mro__[1:-1]
        )
    )
    put: Callable[[Any, str, Any], None] = object.__setattr__ if frozen else setattr

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs or len(args) != len(names):
            args = bind(args, kwargs)
        if with_dict:
            self.__dict__.update(zip(names, args, strict=True))
        else:
            for name, value in zip(names, args, strict=True):
                put(self, name, value)
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _binder(qualname: str, found: dict[str, Field]) -> Callable[[tuple, dict], tuple]:
    """Every field's value from a call's arguments, its defaults and its factories, or
    the TypeError Python gives for a bad call."""
    names = tuple(found)
    defaults = [(f.name, f.default, f.default_factory) for f in found.values()]
    where = f"{qualname}.__init__()"

    def bind(args: tuple, kwargs: dict) -> tuple:
        if len(args) > len(names):
            given = f"{len(args) + 1} were given"
            raise TypeError(f"{where} takes {len(names) + 1} positional arguments but {given}")
        for key in kwargs:
            if key not in found:
                raise TypeError(f"{where} got an unexpected keyword argument {key!r}")
            if names.index(key) < len(args):
                raise TypeError(f"{where} got multiple values for argument {key!r}")
        values = list(args)
        for name, default, factory in defaults[len(args) :]:
            if name in kwargs:
                values.append(kwargs[name])
            elif default is not MISSING:
                values.append(default)
            elif factory is not MISSING:
                values.append(factory())
            else:
                raise TypeError(f"{where} missing 1 required positional argument: {name!r}")
        return tuple(values)

    return bind


def _repr(found: dict[str, Field]) -> Callable[[Any], str]:
    shown = tuple(f.name for f in found.values() if f.repr)

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _compared(found: dict[str, Field]) -> Callable[[Any], tuple]:
    """The values `==` and `hash` read, as one tuple."""
    names = [f.name for f in found.values() if f.compare]
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda obj: (one(obj),)
    return operator.attrgetter(*names)


def _eq(found: dict[str, Field]) -> Callable[[Any, Any], Any]:
    values = _compared(found)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        # Compared as tuples, as dataclasses does (an item is equal to itself first).
        return values(self) == values(other)

    return __eq__


def _hash(found: dict[str, Field]) -> Callable[[Any], int]:
    values = _compared(found)

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _frozen(cls: Any, found: dict[str, Field]) -> tuple[Any, Any]:
    names = frozenset(found)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__
