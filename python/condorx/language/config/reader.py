"""Statements of a configuration file: assignments, includes, conditionals, templates.

A statement is one of

* ``NAME = value`` or ``NAME : value`` (the name is itself expanded, then must be letters,
  digits, ``_``, ``.``, ``/``); ``NAME @=tag`` ... ``@tag`` (a multi-line value);
  ``NAME +op= value`` appending with ``op`` one of nothing (a blank), ``,`` ``;`` ``|``
  ``&`` ``*`` (no blanks) or ``&&`` ``||`` ``**`` (blanks around);
* ``include [ifexist] : FILE`` (also ``@include``), relative names against the working
  directory;
* ``if``/``elif``/``else``/``endif`` (see `conditions`); a leading ``:`` is allowed on
  ``if`` lines and inside ``if`` blocks;
* ``use CATEGORY : NAME[(args)], ...`` (see `metaknobs`);
* ``warning : text`` and ``error : text`` (the latter refuses the configuration);
* ``[section]`` lines, which are ignored.

References to the name being defined are replaced on the spot by its value so far (the
built-in default when there is none), which is what lets ``X = $(X) more`` extend a value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from condorx.language.config import metaknobs
from condorx.language.config.conditions import ConditionContext, ConditionError, evaluate
from condorx.language.config.errors import ConfigError
from condorx.language.config.expand import Expander
from condorx.language.config.lines import LineSource, Statement
from condorx.language.config.scan import is_name
from condorx.language.config.table import MacroTable
from condorx.record import field, record

MAX_INCLUDE_DEPTH = 20
_KEYWORD = re.compile(r"(@?[A-Za-z]+)(?=[\s:]|$)")
_APPEND = re.compile(r"\+(&&|\|\||\*\*|[,;|&*]?)=")
_CONDITIONALS = frozenset({"if", "elif", "else", "endif"})


@record
class _Branch:
    """One open ``if``: whether its current branch is read and whether one was taken."""

    enclosing_active: bool
    active: bool
    taken: bool


@record
class _FileState:
    source: LineSource
    branches: list[_Branch] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return not self.branches or self.branches[-1].active


class Reader:
    """Reads configuration text into a MacroTable."""

    def __init__(
        self,
        table: MacroTable,
        expander: Expander,
        previous: Callable[[str], str],
        is_defined: Callable[[str], bool],
        self_names: Callable[[str], frozenset[str]],
    ) -> None:
        self.table = table
        self.expander = expander
        self._previous = previous
        self._is_defined = is_defined
        self._self_names = self_names
        self.warnings: list[str] = []
        self.files: list[str] = []

    # ---- sources -------------------------------------------------------------------

    def read_file(self, path: str, depth: int = 0) -> None:
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError as exc:
            raise ConfigError(f"can't read config source {path}: {exc.strerror}") from None
        self.files.append(path)
        self.read_text(text, path, depth)

    def read_text(self, text: str, source: str, depth: int = 0) -> None:
        state = _FileState(LineSource(text, source))
        while (stmt := state.source.next()) is not None:
            self._statement(stmt, state, depth)
        if state.branches:
            raise ConfigError("endif(s) not found before end-of-file", source, state.source.line)

    # ---- one statement -------------------------------------------------------------

    def _error(self, state: _FileState, stmt: Statement, message: str) -> ConfigError:
        return ConfigError(message, state.source.source, stmt.line)

    def _statement(self, stmt: Statement, state: _FileState, depth: int) -> None:
        text = stmt.text
        if text.startswith(":"):
            rest = text[1:].lstrip()
            m = _KEYWORD.match(rest)
            if state.branches or (m and m.group(1).lower() in _CONDITIONALS):
                text = rest
        m = _KEYWORD.match(text)
        keyword = m.group(1).lower() if m else ""
        rest = text[m.end() :] if m else ""
        if keyword in _CONDITIONALS:
            self._conditional(keyword, rest, stmt, state)
            return
        if not state.active:
            self._skip_heredoc(text, state)
            return
        if keyword in ("include", "@include"):
            self._include(rest, stmt, state, depth)
        elif keyword == "use":
            self._use(rest, stmt, state, depth)
        elif keyword in ("warning", "error") and rest.lstrip().startswith(":"):
            message = self.expander.expand(rest.lstrip()[1:].strip())
            if keyword == "error":
                raise self._error(state, stmt, message or "error statement")
            self.warnings.append(f"{state.source.source}:{stmt.line}: {message}")
        elif text.startswith("[") and not any(c.isspace() for c in text):
            return  # an INI-style section header: HTCondor ignores it
        else:
            self._assignment(text, stmt, state)

    def _skip_heredoc(self, text: str, state: _FileState) -> None:
        """A multi-line value in a branch not taken must still be read past."""
        m = re.match(r"[^\s=:]*\s+@=\s*(\S+)\s*$", text)
        if m:
            state.source.heredoc(m.group(1))

    # ---- if / elif / else / endif -------------------------------------------------

    def _condition(self, rest: str, stmt: Statement, state: _FileState) -> bool:
        ctx = ConditionContext(
            expand=self.expander.expand,
            is_defined=self._is_defined,
            template_exists=metaknobs.exists,
        )
        try:
            return evaluate(rest.strip(), ctx)
        except ConditionError as exc:
            raise self._error(
                state,
                stmt,
                f"{rest.strip()} is not a valid if condition because {exc}",
            ) from None

    def _conditional(self, keyword: str, rest: str, stmt: Statement, state: _FileState) -> None:
        branches = state.branches
        if keyword == "if":
            outer = state.active
            truth = self._condition(rest, stmt, state) if outer else False
            branches.append(_Branch(outer, truth, truth))
            return
        if not branches:
            raise self._error(state, stmt, f"{keyword} without a matching if")
        top = branches[-1]
        if keyword == "endif":
            branches.pop()
        elif keyword == "else":  # the rest of the line is ignored: "else if x" is else
            top.active = top.enclosing_active and not top.taken
            top.taken = True
        else:  # elif: examined only when no earlier branch was taken
            if top.enclosing_active and not top.taken:
                top.active = self._condition(rest, stmt, state)
                top.taken = top.active
            else:
                top.active = False

    # ---- include and use -------------------------------------------------------------

    def _include(self, rest: str, stmt: Statement, state: _FileState, depth: int) -> None:
        options, colon, target = rest.partition(":")
        words = options.lower().split()
        if not colon or any(w not in ("ifexist", "command") for w in words):
            raise self._error(state, stmt, "include needs the form 'include [ifexist] : FILE'")
        if "command" in words:
            raise self._error(state, stmt, "include command : is not supported by condorx")
        path = self.expander.expand(target.strip()).strip()
        if not path:
            if "ifexist" in words:
                return
            raise self._error(state, stmt, "include names no file")
        path = os.path.abspath(path)
        if not os.path.isfile(path):
            if "ifexist" in words:
                return
            raise self._error(state, stmt, f"can't open file {path}: No such file or directory")
        if depth >= MAX_INCLUDE_DEPTH:
            raise self._error(
                state,
                stmt,
                f"includes nested more than {MAX_INCLUDE_DEPTH} deep (does {path} include itself?)",
            )
        try:
            self.read_file(path, depth + 1)
        except ConfigError as exc:
            if exc.file is None:
                raise self._error(state, stmt, exc.message) from None
            raise

    def _use(self, rest: str, stmt: Statement, state: _FileState, depth: int) -> None:
        category, colon, spec = rest.partition(":")
        category = category.strip()
        items = metaknobs.split_items(spec)
        if not colon or not items:
            raise self._error(state, stmt, "use needs the form 'use CATEGORY : NAME'")
        for item in items:
            text = metaknobs.text_of(category, item)
            if text is None:
                raise self._error(state, stmt, f"unknown template: use {category}:{item}")
            self.read_text(text, f"use {category.upper()}:{item}", depth + 1)

    # ---- assignments -----------------------------------------------------------------

    def _assignment(self, text: str, stmt: Statement, state: _FileState) -> None:
        m = re.match(r"([^\s=:]*)\s*", text)
        assert m is not None  # the pattern matches the empty string
        name_text, rest = m.group(1), text[m.end() :]
        append: str | None = None
        if rest.startswith(("=", ":")):
            value = rest[1:].lstrip()
        elif rest.startswith("@=") and name_text:
            value = state.source.heredoc(rest[2:].strip())
        elif (am := _APPEND.match(rest)) is not None:
            append, value = am.group(1), rest[am.end() :].lstrip()
        else:
            raise self._error(state, stmt, f"not a valid statement: {text}")
        name = self.expander.expand(name_text)
        if not is_name(name):
            raise self._error(state, stmt, f"illegal name <{name}> on the left of the assignment")
        self.assign(name, value, state.source.source, stmt.line, append)

    def assign(
        self, name: str, value: str, source: str, line: int | None, append: str | None = None
    ) -> None:
        """Define name, replacing references to itself by its value so far."""
        previous = self._previous(name)
        value = self.expander.replace_self(value, self._self_names(name), previous)
        if append is not None and previous:
            separator = f" {append} " if len(append) == 2 else (append or " ")
            value = previous + separator + value
        self.table.set(name, value, source, line)
