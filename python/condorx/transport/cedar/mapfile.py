"""HTCondor's unified map file (CERTIFICATE_MAPFILE): how the name a method proved (an
X.509 subject, a SciToken's `issuer,subject`, an FS user) becomes the pool's name for
the peer, as HTCondor's `MapFile` reads and applies it.

Each line is `METHOD principal canonical`; `#` starts a comment line, and
`@include path` reads another file (or each file of a directory) in its place.
A field is a word, or a "quoted string" (`\\"` a quote inside). By default every
principal is a regular expression (searched for, not anchored); with
CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS true a principal is a literal unless written
`/regex/` (flags `i` and `U` may follow). The first line of the method that matches
wins; `\\1`..`\\9` in the canonical name are its groups (`\\0` the whole match). A name
no line maps keeps the method's own.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field

log = logging.getLogger("condorx.security")


@dataclass(frozen=True)
class _Entry:
    literal: str | None
    pattern: re.Pattern[str] | None
    canonical: str


@dataclass
class MapFile:
    entries: dict[str, list[_Entry]] = field(default_factory=dict)

    def map(self, method: str, principal: str) -> str | None:
        """The canonical name for `principal` proved by `method`, or None."""
        for entry in self.entries.get(method, ()):
            if entry.literal is not None:
                if entry.literal == principal:
                    return entry.canonical
                continue
            assert entry.pattern is not None
            found = entry.pattern.search(principal)
            if found is not None:
                return _substitute(entry.canonical, found)
        return None


def load(path: str, assume_hash: bool = False) -> MapFile:
    """The map file at `path` (an unreadable one maps nothing, with the reason logged)."""
    out = MapFile()
    _read(out, path, assume_hash, allow_include=True)
    return out


def parse(text: str, where: str = "<map>", assume_hash: bool = False) -> MapFile:
    out = MapFile()
    _parse(out, text, where, assume_hash, allow_include=True)
    return out


def _read(out: MapFile, path: str, assume_hash: bool, allow_include: bool) -> None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        log.error("cannot read the map file %s: %s", path, e.strerror)
        return
    _parse(out, text, path, assume_hash, allow_include)


def _parse(out: MapFile, text: str, where: str, assume_hash: bool, allow_include: bool) -> None:
    for number, line in enumerate(text.splitlines(), 1):
        method, at = _field(line, 0)
        if method == "@include":
            _include(out, line, at, where, number, assume_hash, allow_include)
            continue
        if not method or method.startswith("#"):
            continue
        principal, at, is_regex, flags = _principal(line, at, assume_hash)
        canonical, at = _field(line, at)
        if not principal or not canonical:
            log.error("%s line %d: needs a method, a principal and a name; skipped", where, number)
            continue
        entry = _entry(principal, is_regex, flags, canonical, where, number)
        if entry is not None:
            out.entries.setdefault(method, []).append(entry)


def _include(
    out: MapFile,
    line: str,
    at: int,
    where: str,
    number: int,
    assume_hash: bool,
    allow_include: bool,
) -> None:
    path, _ = _field(line, at)
    if not allow_include or not path:
        why = "not allowed in an included file" if path else "names no file"
        log.error("%s line %d: @include %s; skipped", where, number, why)
        return
    if not os.path.isabs(path):
        path = os.path.join(os.path.dirname(where), path)
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if not name.startswith(".") and not name.endswith("~"):
                _read(out, os.path.join(path, name), assume_hash, allow_include=False)
    else:
        _read(out, path, assume_hash, allow_include=False)


def _entry(
    principal: str, is_regex: bool, flags: int, canonical: str, where: str, number: int
) -> _Entry | None:
    if not is_regex:
        return _Entry(principal, None, canonical)
    try:
        return _Entry(None, re.compile(principal, flags), canonical)
    except re.error as e:
        log.error("%s line %d: bad expression %r (%s); skipped", where, number, principal, e)
        return None


def _skip_space(line: str, at: int) -> int:
    while at < len(line) and line[at] in " \t\n":
        at += 1
    return at


def _field(line: str, at: int) -> tuple[str, int]:
    """A word or a "quoted string" from `at`; the field and where it ended."""
    at = _skip_space(line, at)
    if at < len(line) and line[at] == '"':
        return _delimited(line, at + 1, '"')
    start = at
    while at < len(line) and line[at] not in " \t\n":
        at += 1
    return line[start:at], at


def _delimited(line: str, at: int, end: str) -> tuple[str, int]:
    """Up to the closing `end` (or the end of the line); `\\end` is `end` itself."""
    out: list[str] = []
    while at < len(line):
        ch = line[at]
        if ch == end:
            return "".join(out), at + 1
        if ch == "\\" and at + 1 < len(line):
            at += 1
            nxt = line[at]
            out.append(nxt if nxt in (end, "\\") else "\\" + nxt)
        else:
            out.append(ch)
        at += 1
    return "".join(out), at


def _principal(line: str, at: int, assume_hash: bool) -> tuple[str, int, bool, int]:
    """The principal field: its text, where it ended, whether it is a regular expression,
    and that expression's flags."""
    if not assume_hash:
        text, at = _field(line, at)
        return text, at, True, 0
    at = _skip_space(line, at)
    if at < len(line) and line[at] == "/":
        text, at = _delimited(line, at + 1, "/")
        flags = 0
        while at < len(line) and line[at] in "iU":
            # PCRE's U (ungreedy) has no flag in Python's re; i is IGNORECASE.
            flags |= re.IGNORECASE if line[at] == "i" else 0
            at += 1
        return text, at, True, flags
    text, at = _field(line, at)
    return text, at, False, 0


def _substitute(canonical: str, found: re.Match[str]) -> str:
    """`\\N` in the canonical name as the match's group N (an absent group is `\\N`)."""
    out = []
    i = 0
    groups = (found.group(0), *found.groups())
    while i < len(canonical):
        ch = canonical[i]
        if ch == "\\" and i + 1 < len(canonical):
            nxt = canonical[i + 1]
            if nxt.isdigit() and int(nxt) < len(groups):
                out.append(groups[int(nxt)] or "")
                i += 2
                continue
            out.append("\\")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)
