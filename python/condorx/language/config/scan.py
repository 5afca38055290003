"""Finding macro references in a value: ``$(NAME)``, ``$(NAME:default)`` and ``$FN(...)``.

The rules are HTCondor's, quirks included, because values are compared byte for byte:

* ``$$`` is an escape the reader leaves alone (it is for submit files).
* A name is letters, digits, ``_``, ``.`` and ``/``; a default may also hold blanks, ``,``,
  ``:``, ``\\``, ``$`` and balanced parentheses — any other character makes the whole
  reference plain text (``$(X:a-b)`` stays as written).
* Function bodies end differently per function: ``$ENV`` reads like ``$(``; ``$INT``,
  ``$REAL``, ``$EVAL``, ``$SUBSTR``, ``$CHOICE`` and the random ones stop at the first
  ``)``; ``$STRING``, ``$BASENAME`` and the ``$F`` path functions take balanced parentheses.
* Function names are case-sensitive (``$int(X)`` is text); ``$F`` modifiers are not.
* A candidate that does not fit is skipped one character at a time, so an inner reference
  (``$(A_$(B))``) is found and expanded first, and the outer one is read on the rescan.
"""

from __future__ import annotations

import re

from condorx.record import record

NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./")
_DEFAULT_CHARS = NAME_CHARS | frozenset(" ,:\\$")
PATH_MODIFIERS = frozenset("abdfnpquwxABDFNPQUWX")

FIRST_PAREN = frozenset(
    {"INT", "REAL", "EVAL", "SUBSTR", "CHOICE", "RANDOM_CHOICE", "RANDOM_INTEGER"}
)
BALANCED = frozenset({"STRING", "BASENAME"})
_FUNC_NAME = re.compile(r"[A-Za-z_]+")


@record(frozen=True)
class Ref:
    start: int
    end: int  # one past the closing parenthesis
    func: str  # "" for $(NAME), else the function ("ENV", "INT", "F", ...)
    body: str  # the text between the parentheses
    name: str = ""  # for $( and $ENV(: the name part
    default: str | None = None  # for $( and $ENV(: the default, when given
    modifiers: str = ""  # for $F: the modifier letters


def is_name(text: str) -> bool:
    return bool(text) and all(c in NAME_CHARS for c in text)


def _name_and_default(text: str, pos: int) -> tuple[str, str | None, int] | None:
    """Parse ``NAME)`` or ``NAME:default)`` starting at pos; (name, default, end)."""
    j = pos
    while j < len(text) and text[j] in NAME_CHARS:
        j += 1
    if j >= len(text):
        return None
    name = text[pos:j]
    if text[j] == ")":
        return name, None, j + 1
    if text[j] != ":":
        return None
    depth = 0
    for k in range(j + 1, len(text)):
        c = text[k]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return name, text[j + 1 : k], k + 1
            depth -= 1
        elif c not in _DEFAULT_CHARS:
            return None
    return None


def _balanced_end(text: str, pos: int) -> int | None:
    """Index of the ``)`` closing the parenthesis opened just before pos."""
    depth = 0
    for k in range(pos, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            if depth == 0:
                return k
            depth -= 1
    return None


def _function(text: str, i: int) -> Ref | None:
    m = _FUNC_NAME.match(text, i + 1)
    if not m or m.end() >= len(text) or text[m.end()] != "(":
        return None
    word, open_at = m.group(), m.end() + 1
    if word == "ENV":
        parsed = _name_and_default(text, open_at)
        if parsed is None or not parsed[0]:
            return None
        name, default, end = parsed
        return Ref(i, end, "ENV", text[open_at : end - 1], name, default)
    close: int | None
    if word in FIRST_PAREN:
        close = text.find(")", open_at)
    elif word in BALANCED or (word[0] == "F" and all(c in PATH_MODIFIERS for c in word[1:])):
        close = _balanced_end(text, open_at)
    else:
        return None
    if close is None or close < 0:
        return None
    func, mods = (word, "") if word in FIRST_PAREN or word in BALANCED else ("F", word[1:])
    return Ref(i, close + 1, func, text[open_at:close], modifiers=mods)


def find_ref(text: str, pos: int = 0, skip_dollar: bool = True) -> Ref | None:
    """The leftmost well-formed reference at or after pos.

    ``$(DOLLAR)`` is passed over when skip_dollar: it becomes ``$`` only once everything
    else is expanded, so the ``$`` it yields never starts a new reference.
    """
    i = text.find("$", pos)
    while 0 <= i < len(text) - 1:
        nxt = text[i + 1]
        if nxt == "$":
            i = text.find("$", i + 2)
            continue
        ref: Ref | None = None
        if nxt == "(":
            parsed = _name_and_default(text, i + 2)
            if parsed is not None:
                name, default, end = parsed
                if skip_dollar and default is None and name.upper() == "DOLLAR":
                    i = text.find("$", end)
                    continue
                ref = Ref(i, end, "", text[i + 2 : end - 1], name, default)
        elif nxt.isalpha():
            ref = _function(text, i)
        if ref is not None:
            return ref
        i = text.find("$", i + 1)
    return None


def resolve_dollars(text: str) -> str:
    """The last step of expansion: each ``$(DOLLAR)`` becomes ``$``, rescanning from the
    start so that ``$(DOLLAR)$(DOLLAR)`` reads as the escape ``$$(DOLLAR)``."""
    while True:
        i = text.find("$", 0)
        found = None
        while 0 <= i < len(text) - 1:
            if text[i + 1] == "$":
                i = text.find("$", i + 2)
                continue
            if text.startswith("(", i + 1):
                parsed = _name_and_default(text, i + 2)
                if parsed and parsed[1] is None and parsed[0].upper() == "DOLLAR":
                    found = (i, parsed[2])
                    break
            i = text.find("$", i + 1)
        if found is None:
            return text
        text = text[: found[0]] + "$" + text[found[1] :]


def ref_at(text: str, i: int) -> Ref | None:
    """The well-formed reference starting exactly at i, if any (``$(DOLLAR)`` included)."""
    if not text.startswith("$", i) or i + 1 >= len(text):
        return None
    if text[i + 1] == "(":
        parsed = _name_and_default(text, i + 2)
        if parsed is None:
            return None
        name, default, end = parsed
        return Ref(i, end, "", text[i + 2 : end - 1], name, default)
    if text[i + 1].isalpha():
        return _function(text, i)
    return None
