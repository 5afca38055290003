"""Requests and replies on the wire as frozen records (`condorx.record`): `to_wire` makes
the frame and `from_wire` reads one back, checking each field's type against the class's
annotations. A handler gets a request whose fields have the types it declares, or the request is
refused naming the command and field; a client gets a reply of its command's type, or a
WireError (the daemon broke the protocol).

Fields left at None are not sent. Types understood: str, int (never a bool), float (an
int too), bool, bytes, Any, `X | None`, and list / dict of anything (their items are the
reader's to check).
"""

from __future__ import annotations

import types
import typing
from typing import Any, ClassVar

from condorx import record
from condorx.errors import Refusal, Refused
from condorx.transport import wire


class _Typed:
    def _fields_to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in record.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = value
        return out

    @classmethod
    def _values(cls, frame: dict[str, Any], label: str) -> dict[str, Any]:
        """The frame's fields, checked; a refusal (bad-request) names what is wrong."""
        values = {}
        for name, (kind, required) in _fields(cls).items():
            value = frame.get(name)
            if value is None:
                if required:
                    raise Refused(Refusal.BAD_REQUEST, f"{label}: '{name}' is missing")
                continue
            if not _is(value, kind):
                wrong = f"'{name}' must be {_name(kind)}, not {value!r:.60}"
                raise Refused(Refusal.BAD_REQUEST, f"{label}: {wrong}")
            values[name] = float(value) if kind is float else value
        return values


class Message(_Typed):
    """The base of every request type; `command` is its name on the wire."""

    command: ClassVar[str] = ""

    def to_wire(self) -> dict[str, Any]:
        return {"cmd": self.command, **self._fields_to_wire()}

    @classmethod
    def from_wire(cls, frame: dict[str, Any]) -> Any:
        """The request a frame carries; a refusal (bad-request) names what is wrong."""
        return cls(**cls._values(frame, cls.command))


class Reply(_Typed):
    """The base of every reply type: a successful reply's fields (`{"ok": true, ...}`)."""

    def to_wire(self) -> dict[str, Any]:
        return {"ok": True, **self._fields_to_wire()}

    @classmethod
    def from_wire(cls, frame: dict[str, Any]) -> Any:
        """The reply a frame carries; WireError when it is not one of this type."""
        try:
            return cls(**cls._values(frame, f"reply {cls.__name__}"))
        except Refused as e:
            raise wire.WireError(str(e)) from None


@record.record(frozen=True)
class Done(Reply):
    """A reply that says only that it was done."""


@record.record(frozen=True)
class Count(Reply):
    """How many: ads stored or dropped, or rows a query streamed before this reply."""

    count: int


@record.record(frozen=True)
class Each(Reply):
    """A batch request's answer: per item, in order, the fields of the item's own reply,
    or {"refused": why, "kind": kind}."""

    results: list[Any]

    def refusal(self, i: int) -> str | None:
        """Why item `i` was refused; None when it was done."""
        r = self.results[i]
        if not isinstance(r, dict):
            return f"the answer {r!r:.60} is not a map"
        return str(r["refused"]) if "refused" in r else None


_FIELDS: dict[type, dict[str, tuple[Any, bool]]] = {}


def _fields(cls: type) -> dict[str, tuple[Any, bool]]:
    """Each field's type (None stripped from an optional one) and whether it is required."""
    if cls not in _FIELDS:
        _FIELDS[cls] = _read_fields(cls)
    return _FIELDS[cls]


def _read_fields(cls: type) -> dict[str, tuple[Any, bool]]:
    hints = typing.get_type_hints(cls)
    out = {}
    for f in record.fields(cls):
        kind = hints[f.name]
        args = typing.get_args(kind)
        optional = isinstance(kind, types.UnionType) and type(None) in args
        if optional:
            rest = [a for a in args if a is not type(None)]
            kind = rest[0] if len(rest) == 1 else Any
        has_default = f.default is not record.MISSING or f.default_factory is not record.MISSING
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
