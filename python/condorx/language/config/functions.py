"""The ``$FUNCTION(...)`` forms of HTCondor's configuration language.

Each gets the body text and a `FunctionContext` to look names up and expand text. Where a
function takes a parameter name, a name that is not defined is read as the literal text
instead (``$Fn(/a/b.c)`` works, ``$STRING(UNSET)`` is ``UNSET``) — except ``$SUBSTR`` and
a one-item ``$CHOICE`` list, which need a defined name. A value that cannot be computed
gives the empty string, as in HTCondor.
"""

from __future__ import annotations

from collections.abc import Callable

from condorx.language.config.paths import path_part
from condorx.language.config.scan import Ref
from condorx.record import record

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record
class FunctionContext:
    value_of: Callable[[str], str | None]  # expanded value of a defined name, else None
    environ: Any  # Mapping[str, str]


def _arg_value(ctx: FunctionContext, arg: str) -> str:
    value = ctx.value_of(arg.strip())
    return arg.strip() if value is None else value


def _split(body: str) -> list[str]:
    return [part.strip() for part in body.split(",")]


def _evaluate(text: str) -> Any:
    """The value of a ClassAd expression, or None when it does not parse."""
    from condorx.classad import ExprTree  # the ClassAd engine loads only when needed

    try:
        return ExprTree(text).eval()
    except Exception:  # any parse failure makes the function's value empty
        return None


def _format(fmt: str | None, value: Any, default: str) -> str:
    try:
        return (fmt or default) % value
    except (TypeError, ValueError):
        return default % value


def _number(ctx: FunctionContext, body: str, kind: type) -> str:
    arg, _, fmt = body.partition(",")
    text = _arg_value(ctx, arg)
    if not text:
        return ""
    value = _evaluate(text)
    if isinstance(value, bool):
        value = int(value)
    # exact types: UNDEFINED and ERROR come back as an IntEnum, which is no number here
    if type(value) not in (int, float):
        return ""
    if kind is int:
        return _format(fmt.strip() or None, int(value), "%d")
    return _format(fmt.strip() or None, float(value), "%.16g")


def _string(ctx: FunctionContext, body: str) -> str:
    arg, _, fmt = body.partition(",")
    text = _arg_value(ctx, arg)
    value = _evaluate(text) if text else None
    result = value if isinstance(value, str) else text
    return _format(fmt.strip() or None, result, "%s")


def _eval(ctx: FunctionContext, body: str) -> str:
    from condorx.classad import ExprTree

    text = _arg_value(ctx, body)
    try:
        tree = ExprTree(text)
        value = tree.eval()
    except Exception:  # unparsable: empty, as HTCondor gives
        return ""
    if isinstance(value, str):
        return value
    return str(tree.simplify())


def _int_arg(ctx: FunctionContext, text: str) -> int | None:
    text = text.strip()
    for candidate in (text, ctx.value_of(text)):
        if candidate is None:
            continue
        try:
            return int(candidate.strip())
        except ValueError:
            continue
    return None


def _substr(ctx: FunctionContext, body: str) -> str:
    args = _split(body)
    value = ctx.value_of(args[0])
    if value is None or len(args) < 2:
        return ""
    start = _int_arg(ctx, args[1]) or 0
    if start < 0:
        start = max(0, len(value) + start)
    if len(args) < 3:
        return value[start:]
    length = _int_arg(ctx, args[2])
    if length is None:
        return value[start:]
    end = start + length if length >= 0 else len(value) + length
    return value[start:end]


def _items(ctx: FunctionContext, args: list[str]) -> list[str]:
    """A list given inline, or (one item) by the name of a defined list."""
    if len(args) == 1:
        value = ctx.value_of(args[0])
        return [] if value is None else _split(value)
    return args


def _choice(ctx: FunctionContext, body: str) -> str:
    args = _split(body)
    index = _int_arg(ctx, args[0]) or 0
    items = _items(ctx, args[1:]) if len(args) > 1 else []
    return items[index] if 0 <= index < len(items) else ""


def _random_choice(ctx: FunctionContext, body: str) -> str:
    import random  # only $RANDOM_CHOICE and $RANDOM_INTEGER need it: tools start without

    items = _items(ctx, _split(body))
    return random.choice(items) if items else ""


def _random_integer(ctx: FunctionContext, body: str) -> str:
    import random

    args = [_int_arg(ctx, a) for a in _split(body)]
    if len(args) < 2 or args[0] is None or args[1] is None or args[1] < args[0]:
        return ""
    step = args[2] if len(args) > 2 and args[2] else 1
    return str(random.randrange(args[0], args[1] + 1, max(1, step)))


def call(ref: Ref, ctx: FunctionContext) -> str:
    """The text replacing one function reference."""
    body = ref.body
    if ref.func == "ENV":
        value = ctx.environ.get(ref.name)
        if value is None:
            return ref.default if ref.default is not None else "UNDEFINED"
        return str(value)
    if ref.func == "F":
        return path_part(_arg_value(ctx, body), ref.modifiers)
    if ref.func == "BASENAME":
        return path_part(_arg_value(ctx, body), "nx")
    handlers: dict[str, Callable[[], str]] = {
        "INT": lambda: _number(ctx, body, int),
        "REAL": lambda: _number(ctx, body, float),
        "STRING": lambda: _string(ctx, body),
        "EVAL": lambda: _eval(ctx, body),
        "SUBSTR": lambda: _substr(ctx, body),
        "CHOICE": lambda: _choice(ctx, body),
        "RANDOM_CHOICE": lambda: _random_choice(ctx, body),
        "RANDOM_INTEGER": lambda: _random_integer(ctx, body),
    }
    return handlers[ref.func]()
