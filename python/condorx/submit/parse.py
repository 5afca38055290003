"""Reading a submit description: commands (macros), custom attributes and queue statements.

Lines follow the configuration language's rules (continuations, `#` comments; see
`condorx.config.lines`). A statement is `name = value`, `+Attr = expr` or `MY.Attr = expr`
(a job attribute as written), or `queue ...`. A `queue ... in (` or `from (` list runs to
its closing parenthesis over several lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from condorx.config.errors import ConfigError
from condorx.config.expand import Expander
from condorx.config.lines import LineSource, Statement
from condorx.submit.errors import SubmitError

_ASSIGN = re.compile(r"^(?P<name>[+]?[A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(?P<value>.*)$", re.DOTALL)
_QUEUE = re.compile(r"^queue(\s+|$|\()", re.IGNORECASE)


@dataclass
class Entry:
    value: str
    line: int


@dataclass
class QueueStatement:
    args: str  # what follows `queue`, expanded and parsed when the jobs are built
    line: int
    macros: dict[str, Entry]  # the commands as they stand at this queue statement
    attrs: dict[str, Entry]  # +Attr / MY.Attr, by attribute name


@dataclass
class Description:
    source: str
    macros: dict[str, Entry] = field(default_factory=dict)  # lower-cased name -> entry
    attrs: dict[str, Entry] = field(default_factory=dict)
    queues: list[QueueStatement] = field(default_factory=list)

    def where(self, line: int) -> str:
        return f"{self.source}, line {line}"


def parse(text: str, source: str, extra: Sequence[str] = ()) -> Description:
    """Read a description; `extra` lines (condor_submit -a) come before the first queue."""
    desc = Description(source)
    lines = LineSource(text, source)
    pending_extra = list(extra)
    while True:
        try:
            stmt = lines.next()
        except ConfigError as e:
            raise SubmitError(str(e)) from None
        if stmt is None:
            break
        if _QUEUE.match(stmt.text):
            _apply_extra(desc, pending_extra)
            pending_extra = []
            _queue(desc, _gather_list(stmt, lines))
        else:
            _statement(desc, stmt.text, stmt.line)
    if pending_extra:
        _apply_extra(desc, pending_extra)
    return desc


def _apply_extra(desc: Description, extra: list[str]) -> None:
    for text in extra:
        if _QUEUE.match(text.strip()):
            raise SubmitError("-append: a queue statement cannot be appended; use -queue")
        _statement(desc, text.strip(), 0)


def _gather_list(stmt: Statement, lines: LineSource) -> Statement:
    """A queue statement whose `(` list goes on over the next lines, joined by newlines."""
    text = stmt.text
    if "(" not in text or text.rstrip().endswith(")"):
        return stmt
    parts = [text]
    while True:
        more = lines.next()
        if more is None:
            raise SubmitError(f"{lines.source}, line {stmt.line}: the queue list has no closing )")
        parts.append(more.text)
        if more.text.rstrip().endswith(")"):
            return Statement("\n".join(parts), stmt.line)


def _statement(desc: Description, text: str, line: int) -> None:
    m = _ASSIGN.match(text)
    if m is None:
        raise SubmitError(f"{desc.where(line)}: not a submit command: {text[:60]!r}")
    name, value = m.group("name"), m.group("value").strip()
    if name.startswith("+"):
        desc.attrs[name[1:]] = Entry(value, line)
    elif name.lower().startswith("my."):
        desc.attrs[name[3:]] = Entry(value, line)
    else:
        low = name.lower()
        if "$" in value:
            # `X = $(X) more` means the value so far, as in the configuration language.
            prev = desc.macros.get(low)
            expander = Expander(lambda n: _raw(desc, n), {})
            try:
                value = expander.replace_self(
                    value, frozenset({low.upper()}), prev.value if prev else ""
                )
            except ConfigError as e:
                raise SubmitError(f"{desc.where(line)}: {e.message}") from None
        desc.macros[low] = Entry(value, line)


def _raw(desc: Description, name: str) -> str | None:
    entry = desc.macros.get(name.lower())
    return entry.value if entry else None


def _queue(desc: Description, stmt: Statement) -> None:
    args = stmt.text[len("queue") :]
    desc.queues.append(QueueStatement(args, stmt.line, dict(desc.macros), dict(desc.attrs)))
