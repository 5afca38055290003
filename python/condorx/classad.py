"""The ClassAd language, shaped like HTCondor's ``classad2`` module.

    >>> from condorx.classad import ClassAd, ExprTree
    >>> slot = ClassAd('[ Memory = 4096; Arch = "X86_64" ]')
    >>> ExprTree('Memory >= 2048 && Arch == "x86_64"').eval(scope=slot)
    True

Values come back as native Python objects (int, float, str, bool, list, ClassAd,
datetime for absolute times, float seconds for relative times), and UNDEFINED and ERROR
as ``Value.Undefined`` and ``Value.Error``. The ads themselves stay in Rust.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator

from condorx import _core
from condorx._core import (
    ClassAd,
    ExprTree,
    count_true,
    eval_against,
    eval_each,
    function_names,
    quote,
    symmetric_matches,
    unquote,
)
from condorx.errors import ClassAdParseError
from condorx.record import record

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import IO

__all__ = [
    "ClassAd",
    "ClassAdParseError",
    "Expr",
    "ExprTree",
    "ParserType",
    "Value",
    "count_true",
    "eval_against",
    "eval_each",
    "function_names",
    "parseAds",
    "parseNext",
    "parseOne",
    "quote",
    "symmetric_matches",
    "unquote",
    "version",
]


@record(frozen=True)
class Expr:
    """An expression kept as its text (new ClassAd syntax), unparsed: how a job ad's
    expressions travel on the wire and leave condor_submit, where an `ExprTree` would be
    parsed for nothing."""

    text: str

    def __init__(self, text: str) -> None:
        # One is made for every expression a packed ad holds when Python reads it: a
        # record's own __init__, which takes any call, costs three times this one.
        object.__setattr__(self, "text", text)


class Value(enum.IntEnum):
    """The two values that are not data: ERROR and UNDEFINED (numbered as classad2's)."""

    Error = 1
    Undefined = 2


_core._register_sentinels(Value.Undefined, Value.Error)


class ParserType(enum.IntEnum):
    """Which syntax a text is in: old (`Name = expr` lines) or new (`[ ... ]`)."""

    Old = 0
    New = 1
    Auto = 2


def _text(source: str | IO[str] | Iterable[str]) -> str:
    if isinstance(source, str):
        return source
    if hasattr(source, "read"):
        return source.read()
    return "".join(source)


def _syntax_of(text: str, parser: ParserType | str) -> ParserType:
    if isinstance(parser, str):
        parser = ParserType[parser.capitalize()]
    if parser != ParserType.Auto:
        return parser
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "//", "/*")):
            return ParserType.New if stripped.startswith("[") else ParserType.Old
    return ParserType.Old


def parseAds(  # noqa: N802 - classad2's name
    source: str | IO[str] | Iterable[str],
    parser: ParserType | str = ParserType.Auto,
) -> Iterator[ClassAd]:
    """Every ad of a text or file, in old or new syntax (Auto looks at the first line)."""
    text = _text(source)
    old = _syntax_of(text, parser) == ParserType.Old
    return iter(_core.parse_ads(text, old))


def parseOne(  # noqa: N802 - classad2's name
    source: str | IO[str] | Iterable[str],
    parser: ParserType | str = ParserType.Auto,
) -> ClassAd:
    """All the ads of a text merged into one (later attributes win), as classad2 does."""
    merged = ClassAd()
    for ad in parseAds(source, parser):
        merged.update(ad)
    return merged


def parseNext(  # noqa: N802 - classad2's name
    source: str | IO[str],
    parser: ParserType | str = ParserType.Auto,
) -> ClassAd:
    """The first ad of a text or file; raises StopIteration when there is none."""
    for ad in parseAds(source, parser):
        return ad
    raise StopIteration


def version() -> str:
    """The condorx version that provides this ClassAd implementation."""
    return _core.__version__
