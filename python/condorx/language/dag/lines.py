"""A DAG file's lines as DAGMan reads them (HTCondor 25's parser): backslash-continued
lines joined, comments and blank lines dropped, inline submit descriptions (`{ }` or
`@=TOKEN` blocks) gathered with their command, and each command split into words that may
be quoted; with the small readers of a command's parts (a pair of names, a number, VARS'
`name="value"` pairs)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from condorx.language.dag.errors import DagError

_VAR = re.compile(r'\s*([+A-Za-z_][A-Za-z0-9_.+]*)\s*=\s*"((?:[^"\\]|\\.)*)"')
# A word: unquoted runs and quoted strings, back to back; a quoted part may escape.
_PART = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[^\s"\']+')
_TOKEN = re.compile(r'(?:"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[^\s"\']+)+')
_CONTINUED = re.compile(r"\\[ \t]*\r?$", re.MULTILINE)  # a line that ends with a backslash
_ALL_VARS = re.compile(r'(?:\s*[+A-Za-z_][A-Za-z0-9_.+]*\s*=\s*"(?:[^"\\]|\\.)*")+\s*')


@dataclass(slots=True)
class Line:
    words: list[str]
    text: str  # the whole line, trimmed (continuation lines joined)
    source: str
    number: int
    block: str | None = None  # an inline submit description's lines

    def where(self) -> str:
        return f"{self.source}, line {self.number}"

    def fail(self, why: str) -> DagError:
        return DagError(f"{self.where()}: {why}")


_BLOCKS = frozenset(("JOB", "FINAL", "SERVICE", "PROVISIONER", "SUBMIT_DESCRIPTION"))


def keyword(word: str) -> str:
    """A keyword as HTCondor's DAG parser compares it: upper case, `-` as `_` (PRE-SKIP is
    PRE_SKIP, DONT-UPDATE is DONT_UPDATE)."""
    return word.upper().replace("-", "_")


def read_lines(text: str, source: str) -> Iterator[Line]:
    """The file's commands, a line each; a line that ends with a backslash goes on on the
    next (numbered by its first line), blank lines and `#` comments skipped."""
    if not _CONTINUED.search(text):  # no line goes on: the quick way
        for number, raw in enumerate(text.splitlines(), 1):
            stripped = raw.strip()
            if stripped and stripped[0] != "#":
                yield Line(stripped.split(), stripped, source, number)
        return
    held: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not held and (not stripped or stripped.startswith("#")):
            continue
        if not held:
            start = number
        if stripped.endswith("\\"):
            held.append(stripped[:-1].strip())
            continue
        whole = " ".join([*held, stripped]).strip() if held else stripped
        held = []
        if whole:
            yield Line(whole.split(), whole, source, start)
    if held:
        whole = " ".join(held).strip()
        if whole:
            yield Line(whole.split(), whole, source, start)


def commands(lines: Iterator[Line]) -> list[Line]:
    """The lines with each inline submit description (`{` ... `}`, or `@=TOKEN` ...
    `@TOKEN`) taken into its command; words after the closing token are the command's."""
    out: list[Line] = []
    for line in lines:
        words = line.words
        opener = words[2] if len(words) >= 3 else ""
        if (opener == "{" or opener[:2] == "@=") and keyword(words[0]) in _BLOCKS:
            end = "}" if opener == "{" else "@" + opener[2:]
            body: list[str] = []
            for inner in lines:
                if inner.words[0] == end:
                    line.block = "".join(b + "\n" for b in body)
                    line.words = words + inner.words[1:]
                    break
                body.append(inner.text)
        out.append(line)
    return out


def tokens(line: Line) -> list[str]:
    """The line's words as HTCondor's DAG lexer reads them when one is quoted (`"..."` or
    `'...'`, a backslash escaping inside): a file name may hold spaces."""
    if '"' not in line.text and "'" not in line.text:
        return line.words
    words: list[str] = []
    for m in _TOKEN.finditer(line.text):
        words.append("".join(unquote(part) for part in _PART.findall(m.group(0))))
    return words


def unquote(part: str) -> str:
    if part[:1] in ('"', "'"):
        return re.sub(r"\\(.)", r"\1", part[1:-1])
    return part


def rest_of(text: str, skip: int) -> str:
    """The line's text after its first `skip` words, spacing kept."""
    parts = text.split(None, skip)
    return parts[skip] if len(parts) > skip else ""


def two(line: Line, usage: str) -> tuple[str, str]:
    if len(line.words) != 3:
        raise line.fail(usage)
    return line.words[1], line.words[2]


# What C++'s std::stoi, which HTCondor's DAG parser reads numbers with, takes: a sign and
# digits at the start (`3.5` and `2x` are 3 and 2), within an int.
_STOI = re.compile(r"[+-]?[0-9]+")


def int_of(line: Line, text: str, what: str) -> int:
    """A number as HTCondor's parser reads it (std::stoi): its leading digits count."""
    m = _STOI.match(text)
    value = int(m.group(0)) if m else None
    if value is None or not -(2**31) <= value < 2**31:
        raise line.fail(f"{what} must be a whole number, not {text!r}")
    return value


def pair(line: Line, name: str, value: str) -> tuple[str, str]:
    name = sys.intern(name)  # most nodes set the same few names
    if name.lower().startswith("queue"):
        raise line.fail(f"VARS may not set {name}")
    if "\\" in value:
        value = re.sub(r'\\([\\"])', r"\1", value)
    return name, value


def pairs(line: Line, text: str) -> list[tuple[str, str]]:
    """VARS' `name="value"` pairs; a value keeps `\\"` as `"` and `\\\\` as `\\`."""
    if _ALL_VARS.fullmatch(text):  # the usual line, read in one go
        return [pair(line, name, value) for name, value in _VAR.findall(text)]
    out, pos = [], 0
    while pos < len(text) and text[pos:].strip():
        m = _VAR.match(text, pos)
        if m is None:
            raise line.fail(f'VARS expects name="value" at {text[pos:].strip()[:30]!r}')
        out.append(pair(line, m.group(1), m.group(2)))
        pos = m.end()
    if not out:
        raise line.fail('VARS needs name="value" pairs')
    return out
