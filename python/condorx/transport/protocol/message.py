"""Requests and replies on the wire as frozen records (`condorx.record`): `to_wire` makes
the frame and `from_wire` reads one back, checking each field's type against the class's
annotations. A handler gets a request whose fields have the types it declares, or the
request is refused naming the command and field; a client gets a reply of its command's
type, or a WireError (the daemon broke the protocol).

Fields left at None are not sent. Types understood: str, int (never a bool), float (an
int too), bool, bytes, Any, `X | None`, and list / dict of anything (their items are the
reader's to check).
"""

from __future__ import annotations

from condorx import record
from condorx.errors import Refusal, Refused
from condorx.transport import wire

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any, ClassVar


class _Typed:
    def _fields_to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in record.fields(self):
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


_FIELDS: dict[type, dict[str, tuple[type, bool]]] = {}

# The types a field may have, by the name its annotation starts with (`list[Any]` is a
# list: its items are the reader's to check). `Any` allows any value. Annotations are
# read as text, not through typing, which a tool would import on every call for it.
_KINDS: dict[str, type] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "bytes": bytes,
    "list": list,
    "dict": dict,
    "Any": object,
}


def _fields(cls: type) -> dict[str, tuple[type, bool]]:
    """Each field's type (None stripped from an optional one) and whether it is required."""
    if cls not in _FIELDS:
        _FIELDS[cls] = _read_fields(cls)
    return _FIELDS[cls]


def _read_fields(cls: type) -> dict[str, tuple[type, bool]]:
    annotations: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        annotations.update(base.__dict__.get("__annotations__", {}))
    out = {}
    for f in record.fields(cls):
        kind, optional = _kind(cls, f.name, annotations[f.name])
        has_default = f.default is not record.MISSING or f.default_factory is not record.MISSING
        out[f.name] = (kind, not optional and not has_default)
    return out


def _kind(cls: type, name: str, annotation: Any) -> tuple[type, bool]:
    """A field's type, and whether it may be None, from its annotation: `T`, `T[...]`,
    `T | None`; a union of several types allows any value."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "?")
    parts = [p.strip() for p in text.split("|")]
    rest = [p for p in parts if p != "None"]
    kinds = [_KINDS[k] for p in rest if (k := p.split("[")[0].strip()) in _KINDS]
    if not kinds or len(kinds) < len(rest):
        raise TypeError(f"{cls.__name__}.{name}: {text} is not a type the wire checks")
    return (kinds[0] if len(kinds) == 1 else object), len(rest) < len(parts)


def _is(value: object, kind: type) -> bool:
    if kind is object:
        return True
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, kind)


def _name(kind: type) -> str:
    return {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        bytes: "bytes",
        list: "a list",
        dict: "a map",
    }.get(kind, "any value")
