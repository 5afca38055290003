"""Reading a transform's text into its envelope (NAME, UNIVERSE, REQUIREMENTS) and its
steps, as HTCondor's MacroStreamXFormSource::open and ParseRulesCallback read it.

A line is, in order of the tests:
- blank, or a `#` comment;
- `NAME x`, `UNIVERSE u` or `REQUIREMENTS expr` (a keyword, blanks, then anything but
  `=` or `:`): the envelope, taken out of the steps;
- `TRANSFORM [n]`: the end of the rules (what follows is not read);
- `if cond`, `elif cond`, `else`, `endif`: the configuration's conditionals, whose
  conditions (`defined MY.attr`, `$(macro)`, ...) are judged as each job is transformed;
- `name = value` or `name @=tag` ... `tag`: a macro of the transform's own (the name is
  the first word, up to a blank, `=` or `:`);
- a step: a keyword, an attribute (a `/regex/` for COPY, RENAME and DELETE; a trailing
  `,` or `=` dropped, since words split only at blanks), an optional `=` or `,` word, and
  the rest of the line, its macros expanded when the step runs.

HTCondor finds a bad step only when it runs it, and then fails every job it transforms;
here it is found as the text is read (`TransformError`, naming the line), so that the
schedd can say so at start-up as well as refuse the jobs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from condorx.classad import ExprTree


class TransformError(ValueError):
    pass


# The keywords of a step, with how many words they take (HTCondor's ActionKeywords).
_TWO = frozenset({"COPY", "DEFAULT", "EVALMACRO", "EVALSET", "RENAME", "SET"})
_KEYWORDS = _TWO | {"DELETE", "NAME", "REQUIREMENTS", "TRANSFORM", "UNIVERSE"}
_REGEX_OK = frozenset({"COPY", "RENAME", "DELETE"})
_ENVELOPE = re.compile(r"(NAME|UNIVERSE|REQUIREMENTS|TRANSFORM)[ \t]+([^ \t=:].*)$", re.I)
_MACRO = re.compile(r"([^\s=:]+)\s*(@?=)")
# A conditional line: the keyword, then blanks or the end (as the configuration's).
_CONDITIONAL = re.compile(r"(if|elif|else|endif)(?:[ \t]+(.*))?$", re.I)
_UNIVERSES = {
    "standard": 1,
    "vanilla": 5,
    "scheduler": 7,
    "grid": 9,
    "java": 10,
    "parallel": 11,
    "local": 12,
    "vm": 13,
    "docker": 5,
    "container": 5,
}


@dataclass(frozen=True)
class Step:
    """One line of rules: a keyword's step, or ("MACRO", name, value)."""

    keyword: str
    attr: str  # the attribute (or macro) it names; empty for a regex step
    rhs: str  # the rest of the line, unexpanded
    line: int
    regex: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Transform:
    name: str
    steps: tuple[Step, ...]
    requirements: ExprTree | None = None
    universe: int | None = None


def parse(text: str, name: str = "", where: str | None = None) -> Transform:
    """The transform the text spells (`where` names it in errors: a knob, a file)."""
    where = where or (f"JOB_TRANSFORM_{name}" if name else "the transform")
    lines = text.splitlines()
    steps: list[Step] = []
    requirements: ExprTree | None = None
    universe: int | None = None
    depth = 0  # the ifs open
    i = 0
    while i < len(lines):
        number, line = i + 1, lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        keyword, rest = _envelope(line)
        if keyword == "TRANSFORM":
            break
        if keyword == "NAME":
            name = name or rest.strip()
            continue
        if keyword == "UNIVERSE":
            universe = _universe(rest.strip(), where, number)
            continue
        if keyword == "REQUIREMENTS":
            requirements = _expression(rest, where, number, "REQUIREMENTS")
            continue
        conditional = _CONDITIONAL.match(line)
        if conditional is not None:
            word = conditional.group(1).lower()
            depth = _nesting(depth, word, where, number)
            steps.append(Step(word.upper(), "", (conditional.group(2) or "").strip(), number))
            continue
        macro = _MACRO.match(line)
        if macro is not None and macro.group(2) == "@=":
            tag = line[macro.end() :].strip()
            body, i = _heredoc(lines, i, tag, where, number)
            steps.append(Step("MACRO", macro.group(1), body, number))
        elif macro is not None:
            steps.append(Step("MACRO", macro.group(1), line[macro.end() :].strip(), number))
        else:
            step = _step(line, where, number)
            if step is not None:
                steps.append(step)
    if depth:
        raise TransformError(f"{where}: endif(s) not found before the end of the transform")
    return Transform(name, tuple(steps), requirements, universe)


def _nesting(depth: int, word: str, where: str, number: int) -> int:
    """The ifs open after a conditional line; an elif, else or endif needs one."""
    if word == "if":
        return depth + 1
    if not depth:
        raise TransformError(f"{where} line {number}: {word} without a matching if")
    return depth - 1 if word == "endif" else depth


def _envelope(line: str) -> tuple[str | None, str]:
    """The envelope keyword the line starts with (and its rest), as is_xform_statement
    sees it: the keyword, blanks, then anything but `=` or `:` (`NAME = x` is a macro).
    A bare `TRANSFORM` is no envelope: it is read as a step that does nothing."""
    found = _ENVELOPE.match(line)
    if found is None:
        return None, ""
    return found.group(1).upper(), found.group(2)


def _heredoc(lines: list[str], i: int, tag: str, where: str, number: int) -> tuple[str, int]:
    body: list[str] = []
    while i < len(lines):
        if lines[i].strip() == tag:
            return "\n".join(body), i + 1
        body.append(lines[i])
        i += 1
    raise TransformError(f"{where} line {number}: @={tag} has no closing {tag}")


def _universe(text: str, where: str, number: int) -> int:
    if text.isdigit():
        return int(text)
    found = _UNIVERSES.get(text.lower())
    if found is None:
        raise TransformError(f"{where} line {number}: UNIVERSE {text!r} is not a universe")
    return found


def _expression(text: str, where: str, number: int, what: str) -> ExprTree:
    try:
        return ExprTree(text)
    except ValueError:  # a ClassAdParseError too
        raise TransformError(f"{where} line {number}: invalid {what} : {text}") from None


class _Words:
    """The words of a line, split at blanks; a quoted word ("..." or '...') is one."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.start = self.end = 0
        self.quoted = False

    def next(self) -> str | None:
        line, at = self.line, self.end
        while at < len(line) and line[at] in " \t":
            at += 1
        if at >= len(line):
            return None
        self.quoted = line[at] in "\"'"
        if self.quoted:
            close = line.find(line[at], at + 1)
            self.start, self.end = at + 1, (len(line) if close < 0 else close + 1)
            return line[at + 1 : close if close >= 0 else len(line)]
        self.start = at
        while at < len(line) and line[at] not in " \t":
            at += 1
        self.end = at
        return line[self.start : at]

    def rest(self) -> str:
        """The line from the current word on (its opening quote included)."""
        return self.line[self.start - 1 if self.quoted else self.start :].rstrip()


def _step(line: str, where: str, number: int) -> Step | None:
    words = _Words(line)
    word = words.next() or ""
    keyword = word.upper()
    if keyword not in _KEYWORDS:
        raise TransformError(f"{where} line {number}: {word} is not a valid transform keyword")
    attr = words.next()
    if attr is None:
        if keyword == "TRANSFORM":
            return None
        raise TransformError(f"{where} line {number}: {keyword} needs an argument")
    regex = None
    if keyword in _REGEX_OK and attr.startswith("/") and not words.quoted:
        regex, attr = _regex(words, where, number), ""
    elif attr.endswith((",", "=")):
        attr = attr[:-1]
    if keyword in _TWO:
        value = words.next()
        if value in ("=", ","):
            value = words.next()
        if value is None:
            raise TransformError(f"{where} line {number}: {keyword} needs 2 arguments")
    return Step(keyword, attr, words.rest(), number, regex)


def _regex(words: _Words, where: str, number: int) -> re.Pattern[str]:
    """A `/regex/flags` attribute (flags g, m, i and U; matched without case always, as
    HTCondor adds PCRE2_CASELESS). Python's re has no ungreedy mode: U is accepted and
    changes nothing, which matters only to what a group captures."""
    line, at = words.line, words.start
    close = line.find("/", at + 1)
    if close < 0:
        raise TransformError(f"{where} line {number}: invalid regex")
    text = line[at + 1 : close]
    end = close + 1
    flags = re.IGNORECASE
    while end < len(line) and line[end] not in " \t":
        flag = line[end]
        if flag not in "gmiU":
            raise TransformError(f"{where} line {number}: invalid regex flag {flag!r}")
        flags |= re.MULTILINE if flag == "m" else 0
        end += 1
    words.end = end
    try:
        return re.compile(text, flags)
    except re.error as e:
        raise TransformError(f"{where} line {number}: bad regex /{text}/: {e}") from None
