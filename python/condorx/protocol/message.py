"""A request on the wire as a frozen dataclass: `to_wire` makes its frame and
`from_wire` reads one back, checking each field's type against the class's annotations,
so that a handler gets fields of the types it declares or the request is refused with
the command and field named.

Fields left at None are not sent. Types understood: str, int (never a bool), float (an
int too), bool, bytes, Any, `X | None`, and list / dict of anything (their items are the
handler's to read).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, ClassVar

from condorx.errors import Refused


class Message:
    """The base of every request type; `command` is its name on the wire."""

    command: ClassVar[str] = ""

    def to_wire(self) -> dict[str, Any]:
        frame: dict[str, Any] = {"cmd": self.command}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is not None:
                frame[f.name] = value
        return frame

    @classmethod
    def from_wire(cls, frame: dict[str, Any]) -> Any:
        """The request a frame carries; a refusal (bad-request) names what is wrong."""
        values = {}
        for name, (kind, required) in _fields(cls).items():
            value = frame.get(name)
            if value is None:
                if required:
                    raise Refused("bad-request", f"{cls.command}: '{name}' is missing")
                continue
            if not _is(value, kind):
                wrong = f"'{name}' must be {_name(kind)}, not {value!r:.60}"
                raise Refused("bad-request", f"{cls.command}: {wrong}")
            values[name] = float(value) if kind is float else value
        return cls(**values)


_FIELDS: dict[type, dict[str, tuple[Any, bool]]] = {}


def _fields(cls: type) -> dict[str, tuple[Any, bool]]:
    """Each field's type (None stripped from an optional one) and whether it is required."""
    if cls not in _FIELDS:
        _FIELDS[cls] = _read_fields(cls)
    return _FIELDS[cls]


def _read_fields(cls: type) -> dict[str, tuple[Any, bool]]:
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        kind = hints[f.name]
        args = typing.get_args(kind)
        optional = isinstance(kind, types.UnionType) and type(None) in args
        if optional:
            rest = [a for a in args if a is not type(None)]
            kind = rest[0] if len(rest) == 1 else Any
        has_default = (
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
        out[f.name] = (kind, not optional and not has_default)
    return out


def _is(value: object, kind: Any) -> bool:
    origin = typing.get_origin(kind) or kind
    if kind is Any:
        return True
    if origin is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, origin)


def _name(kind: Any) -> str:
    origin = typing.get_origin(kind) or kind
    return {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        bytes: "bytes",
        list: "a list",
        dict: "a map",
    }.get(origin, str(kind))
