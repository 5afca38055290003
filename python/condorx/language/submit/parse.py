"""Reading a submit description: commands (macros), custom attributes and queue statements.

Lines follow the configuration language's rules (continuations, `#` comments; see
`condorx.language.config.lines`). A statement is `name = value`, `+Attr = expr` or `MY.Attr = expr`
(a job attribute as written), or `queue ...`. A `queue ... in (` or `from (` list runs to
its closing parenthesis over several lines.

Any name may be set: one that is no submit command is a macro for `$(name)`, as in
HTCondor (a command's other spellings, like `RequestCpus`, are resolved where commands are
read: `keywords.spellings`). `+Attr` and `MY.Attr` are macros too, as `MY.Attr`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from condorx.language.config.conditions import ConditionContext, ConditionError, evaluate
from condorx.language.config.errors import ConfigError
from condorx.language.config.expand import Expander
from condorx.language.config.lines import LineSource, Statement
from condorx.language.submit.errors import SubmitError
from condorx.record import field, record

_ASSIGN = re.compile(r"^(?P<name>[+]?[A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(?P<value>.*)$", re.DOTALL)
_QUEUE = re.compile(r"^queue(\s+|$|\()", re.IGNORECASE)
# A queue statement whose item list opens with "(" (after an optional [slice]).
_OPEN_LIST = re.compile(r"\s(in|from)\s*(\[[^\]]*\]\s*)?\(", re.IGNORECASE)


@record
class Entry:
    value: str
    line: int
    spelled: str = ""  # the name as written, for messages and `request_<Name>`


@record
class QueueStatement:
    args: str  # what follows `queue`, expanded and parsed when the jobs are built
    line: int
    macros: dict[str, Entry]  # the commands as they stand at this queue statement
    attrs: dict[str, Entry]  # +Attr / MY.Attr, by attribute name


@record
class Description:
    source: str
    # The file's name as condor_submit was given it: $(SUBMIT_FILE) and JobSubmitFile (none
    # when the description comes from standard input).
    submit_file: str | None = None
    macros: dict[str, Entry] = field(default_factory=dict)  # lower-cased name -> entry
    attrs: dict[str, Entry] = field(default_factory=dict)
    queues: list[QueueStatement] = field(default_factory=list)

    def where(self, line: int) -> str:
        return f"{self.source}, line {line}"


@record
class _Branch:
    enclosing_active: bool
    active: bool
    taken: bool


def parse(
    text: str,
    source: str,
    append: Sequence[str] = (),
    submit_file: str | None = None,
    top: Sequence[str] = (),
    queue: str | None = None,
) -> Description:
    """Read a description as condor_submit does: `top` (its NAME=VALUE arguments) before the
    file, `append` (its -append lines) again just before every queue statement. A file
    with no queue statement queues `queue` (its -queue argument), else one job."""
    desc = Description(source, submit_file)
    for text_ in top:
        _statement(desc, text_.strip(), 0)
    lines = LineSource(text, source)
    branches: list[_Branch] = []
    while True:
        try:
            stmt = lines.next()
        except ConfigError as e:
            raise SubmitError(str(e)) from None
        if stmt is None:
            break
        if not stmt.text.strip():  # a lone continuation: nothing was said
            continue
        keyword = stmt.text.split(None, 1)[0].lower()
        if keyword in _CONDITIONALS and not _ASSIGN.match(stmt.text):
            _conditional(desc, branches, keyword, stmt)
            continue
        if branches and not branches[-1].active:
            continue
        if _QUEUE.match(stmt.text):
            _apply_extra(desc, append)
            _queue(desc, _gather_list(stmt, lines))
        else:
            _statement(desc, _gather_block(stmt, lines).text, stmt.line)
    if branches:
        raise SubmitError(f"{source}: endif(s) not found before end-of-file")
    if queue is not None and desc.queues:
        raise SubmitError("-queue argument conflicts with queue statement in submit file")
    if not desc.queues:
        _apply_extra(desc, append)
        _queue(desc, Statement("queue " + (queue or ""), lines.line))
    return desc


_CONDITIONALS = frozenset({"if", "elif", "else", "endif"})


def _conditional(desc: Description, branches: list[_Branch], keyword: str, stmt: Statement) -> None:
    """`if`/`elif`/`else`/`endif`, with the configuration language's conditions."""
    rest = stmt.text.split(None, 1)[1] if " " in stmt.text.strip() else ""
    if keyword == "if":
        outer = not branches or branches[-1].active
        truth = _condition(desc, rest, stmt) if outer else False
        branches.append(_Branch(outer, truth, truth))
        return
    if not branches:
        raise SubmitError(f"{desc.where(stmt.line)}: {keyword} without a matching if")
    top = branches[-1]
    if keyword == "endif":
        branches.pop()
    elif keyword == "else":
        top.active = top.enclosing_active and not top.taken
        top.taken = True
    elif top.enclosing_active and not top.taken:
        top.active = _condition(desc, rest, stmt)
        top.taken = top.active
    else:
        top.active = False


def _condition(desc: Description, rest: str, stmt: Statement) -> bool:
    expander = Expander(lambda n: _raw(desc, n), {})
    ctx = ConditionContext(
        expand=expander.expand,
        is_defined=lambda name: name.lower() in desc.macros,
        template_exists=lambda _c, _t: False,
    )
    try:
        return evaluate(rest.strip(), ctx)
    except (ConditionError, ConfigError) as e:
        raise SubmitError(
            f"{desc.where(stmt.line)}: {rest.strip()} is not a valid if condition because {e}"
        ) from None


def _apply_extra(desc: Description, extra: Sequence[str]) -> None:
    for text in extra:
        if _QUEUE.match(text.strip()):
            raise SubmitError("-append: a queue statement cannot be appended; use -queue")
        _statement(desc, text.strip(), 0)


def _gather_list(stmt: Statement, lines: LineSource) -> Statement:
    """A queue statement whose `(` list goes on over the next lines, joined by newlines: as
    condor_submit reads it, up to a line that begins with `)`, blank lines kept as rows."""
    text = stmt.text
    if not _OPEN_LIST.search(text) or text.rstrip().endswith(")"):
        return stmt
    parts = [text]
    while True:
        more = lines.physical()
        if more is None:
            raise SubmitError(f"{lines.source}, line {stmt.line}: the queue list has no closing )")
        parts.append(more)
        if more.startswith(")"):
            return Statement("\n".join(parts), stmt.line)


_BLOCK = re.compile(r"^(?P<name>[+]?[A-Za-z_][A-Za-z0-9_.]*)\s*@=\s*(?P<tag>\S+)$")


def _gather_block(stmt: Statement, lines: LineSource) -> Statement:
    """`NAME @=tag`, the lines of a value, then `@tag`: one statement whose value keeps
    its newlines (HTCondor's submit language, and the digests its clients send)."""
    m = _BLOCK.match(stmt.text)
    if m is None:
        return stmt
    end = "@" + m.group("tag")
    body: list[str] = []
    while True:
        more = lines.physical()
        if more is None:
            raise SubmitError(f"{lines.source}, line {stmt.line}: no {end} ends this value")
        if more == end:
            return Statement(f"{m.group('name')} = " + "\n".join(body), stmt.line)
        body.append(more)


def _statement(desc: Description, text: str, line: int) -> None:
    m = _ASSIGN.match(text)
    if m is None:
        raise SubmitError(f"{desc.where(line)}: not a submit command: {text[:60]!r}")
    name, value = m.group("name"), m.group("value").strip()
    if name.startswith("+") or name.lower().startswith("my."):
        attr = name[1:] if name.startswith("+") else name[3:]
        if not attr or "." in attr:
            raise SubmitError(f"{desc.where(line)}: {name!r} is not a job attribute name")
        desc.attrs[attr] = Entry(value, line)
        desc.macros["my." + attr.lower()] = Entry(value, line, name)
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
        desc.macros[low] = Entry(value, line, name)


def _raw(desc: Description, name: str) -> str | None:
    entry = desc.macros.get(name.lower())
    return entry.value if entry else None


def _queue(desc: Description, stmt: Statement) -> None:
    args = stmt.text[len("queue") :]
    desc.queues.append(QueueStatement(args, stmt.line, dict(desc.macros), dict(desc.attrs)))
