"""HTCondor's argument and environment syntaxes, as condor_submit reads them and the
starter runs them.

New (V2) syntax: blanks separate words, single quotes group them, and '' inside quotes is
one literal quote; in a submit file the whole value is in double quotes, where "" is one
literal double quote. The old (V1) arguments are blank-separated words with no quoting; the
old environment is `NAME=value;NAME=value`. The job ad keeps the new syntax in canonical form:
each blank and each single quote of a word is quoted on its own (`a b` as `a' 'b`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from condorx.errors import CondorxError


class SyntaxProblem(CondorxError):
    """Arguments or an environment that do not follow either syntax."""


def is_v2(raw: str) -> bool:
    return len(raw) >= 2 and raw[0] == '"' and raw[-1] == '"'


# What HTCondor's argument and environment parsers take for blanks (condor_arglist.cpp):
# not Python's isspace, which also counts \v, \f and \x1c-\x1f.
BLANKS = " \t\n\r"
_BLANK_RUN = re.compile(f"[{BLANKS}]+")
# The characters HTCondor takes for an old-syntax environment's delimiter when one starts
# the value (env.cpp, is_permitted_delim).
_V1_DELIMS = "!#$%&*+,-/:;<>?@^`|~\x1f"


def split_v2(text: str, strict: bool = False) -> list[str]:
    """The words of new-syntax text; `strict` refuses an unterminated quote."""
    words: list[str] = []
    cur: list[str] = []
    in_word = quoted = False
    i = 0
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "'" and text[i + 1 : i + 2] == "'":
                cur.append("'")
                i += 1
            elif c == "'":
                quoted = False
            else:
                cur.append(c)
        elif c == "'":
            quoted = in_word = True
        elif c in BLANKS:
            if in_word:
                words.append("".join(cur))
                cur, in_word = [], False
        else:
            cur.append(c)
            in_word = True
        i += 1
    if quoted and strict:
        raise SyntaxProblem(f"unterminated single quote in {text!r}")
    if in_word:
        words.append("".join(cur))
    return words


def submit_v2(raw: str) -> list[str]:
    """The words of a submit file's double-quoted new-syntax value."""
    inner = raw[1:-1]
    stray = inner.replace('""', "")
    if '"' in stray:
        raise SyntaxProblem(f'a lone double quote in {raw!r}; write it as ""')
    return split_v2(inner.replace('""', '"'), strict=True)


def check_v1_args(raw: str) -> str:
    """Old-syntax arguments as the job keeps them: a backslash-quote is a literal double
    quote, a bare one is an error; words are separated by single blanks."""
    bare = re.search(r'(?<!\\)"', raw)
    if bare:
        raise SyntaxProblem(
            f"Found illegal unescaped double-quote: {raw[bare.start() :]!s}"
            " (surround the whole value with double quotes to use the new syntax)"
        )
    return " ".join(w for w in _BLANK_RUN.split(raw.replace('\\"', '"')) if w)


def quote_word(word: str) -> str:
    """A word in canonical new syntax, as HTCondor writes it: a run of blanks and single
    quotes is one quoted section (`a  b` as `a'  'b`), since two sections side by side
    would read as one holding a literal quote (`' '' '` is blank, quote, blank)."""
    if not word:
        return "''"
    out: list[str] = []
    for c in word:
        if c in BLANKS or c == "'":
            if out and out[-1] == "'":
                out.pop()  # extend the quoted section just closed
            else:
                out.append("'")
            out.append("''" if c == "'" else c)
            out.append("'")
        else:
            out.append(c)
    return "".join(out)


def join_v2(words: Iterable[str]) -> str:
    return " ".join(quote_word(w) for w in words)


def parse_env(raw: str) -> dict[str, str | None]:
    """A submit file's environment value, in either syntax, as HTCondor's Env reads it:
    an old-syntax entry loses its leading blanks only (`A = 1` is `A ` set to ` 1`), a
    newline ends one as the delimiter does, and a first character that may be a
    delimiter (`|A=1|B=2`) is the delimiter."""
    pairs = submit_v2(raw) if is_v2(raw) else _v1_entries(raw)
    env: dict[str, str | None] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq and "$$" in pair:  # a $$() macro left for the match: kept as it is
            env[pair] = None
            continue
        if not eq or not name:
            raise SyntaxProblem(f"{pair.strip()!r} is not NAME=value")
        env[name] = value
    return env


def _v1_entries(raw: str) -> list[str]:
    delim = ";"
    if raw[:1] and raw[0] in _V1_DELIMS:
        delim, raw = raw[0], raw[1:]
    entries = (e.lstrip(BLANKS) for e in re.split("[\n" + re.escape(delim) + "]", raw))
    return [e for e in entries if e]


def join_env(env: Mapping[str, str | None]) -> str:
    """The new-syntax Environment, sorted by name as HTCondor's Env keeps it (a $$()
    entry with no value is written alone)."""
    return " ".join(_env_entry(k, v, quote_word) for k, v in sorted(env.items()))


def join_env_v1(env: Mapping[str, str | None]) -> str:
    """The old-syntax Env; a value that old syntax cannot hold (a `;`) is left out."""
    entries = sorted((k, v) for k, v in env.items() if v is None or ";" not in v)
    return ";".join(_env_entry(k, v, str) for k, v in entries)


def _env_entry(name: str, value: str | None, quote: Callable[[str], str]) -> str:
    if value is None:
        return quote(name)
    return f"{quote(name)}={quote(value) if value else ''}"
