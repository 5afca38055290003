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
from collections.abc import Iterable, Mapping

from condorx.errors import CondorxError


class SyntaxProblem(CondorxError):
    """Arguments or an environment that do not follow either syntax."""


def is_v2(raw: str) -> bool:
    return len(raw) >= 2 and raw[0] == '"' and raw[-1] == '"'


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
        elif c.isspace():
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
    return " ".join(raw.replace('\\"', '"').split())


def quote_word(word: str) -> str:
    """A word in canonical new syntax, as HTCondor writes it: a run of blanks and single
    quotes is one quoted section (`a  b` as `a'  'b`), since two sections side by side
    would read as one holding a literal quote (`' '' '` is blank, quote, blank)."""
    if not word:
        return "''"
    out: list[str] = []
    for c in word:
        if c.isspace() or c == "'":
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


def parse_env(raw: str) -> dict[str, str]:
    """A submit file's environment value, in either syntax."""
    if is_v2(raw):
        pairs = submit_v2(raw)
    else:
        pairs = [p for p in raw.split(";") if p.strip()]
    env: dict[str, str] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not name.strip():
            raise SyntaxProblem(f"{pair.strip()!r} is not NAME=value")
        env[name.strip()] = value
    return env


def join_env(env: Mapping[str, str]) -> str:
    """The new-syntax Environment, sorted by name as HTCondor's Env keeps it."""
    return " ".join(f"{quote_word(k)}={quote_word(v) if v else ''}" for k, v in sorted(env.items()))


def join_env_v1(env: Mapping[str, str]) -> str:
    """The old-syntax Env; a value that old syntax cannot hold (a `;`) is left out."""
    return ";".join(f"{k}={v}" for k, v in sorted(env.items()) if ";" not in v)
