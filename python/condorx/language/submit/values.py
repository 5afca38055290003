"""One proc's expanded command values, as the rows of the command table read them.

`Values` records what each row read, so that for procs after the first only the rows that
read a command whose value changed are run again.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Callable, Iterable, Sequence

from condorx.classad import Expr, ExprTree
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.keywords import spellings

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

_TRUE = ("true", "yes", "t", "y", "1")
_FALSE = ("false", "no", "f", "n", "0")


class Values:
    """One proc's expanded command values, with the line each came from for errors."""

    def __init__(
        self,
        get: Callable[[str], str | None],
        where: Callable[[str], str],
        facts: dict[str, str],
        names: Callable[[], Sequence[str]] = lambda: (),
        own: Callable[[str], str | None] | None = None,
        track: bool = True,
    ) -> None:
        self._get = get
        self._own = own or get
        self.where = where
        self.facts = facts  # submit-side facts: cwd, arch, opsys, fs_domain, user
        self._names = names
        # The commands read, kept only where a plan is made of them (the first proc).
        self.reads: set[str] = set()
        self._track = track

    def get(self, name: str) -> str | None:
        """The expanded value of a command, None when unset or empty."""
        text = self.text(name)
        return text.strip() if text and text.strip() else None

    def text(self, name: str) -> str | None:
        """The expanded value as it stands (maybe empty); None when the command is not set."""
        if self._track:
            self.reads.update(spellings(name))
        return self._get(name)

    def own(self, name: str) -> str | None:
        """The value of this very name, not of a command it is another spelling of."""
        if self._track:
            self.reads.add(name)
        v = self._own(name)
        return v.strip() if v and v.strip() else None

    def given(self, name: str) -> bool:
        return self.get(name) is not None

    def names(self) -> Sequence[str]:
        """Every command and macro name the description sets (for `request_<name>`-like
        families). The names are the same for every proc of a queue statement, so reading
        them adds no dependency: the values a row then reads are its dependencies (a
        `*` here made 100,000 procs each run the requirements row again)."""
        return self._names()

    def bool(self, name: str, default: bool) -> bool:
        v = self.get(name)
        if v is None:
            return default
        low = v.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise SubmitError(f"{self.where(name)}: {name} must be true or false, not {v!r}")

    def bool_or_expr(self, name: str) -> Any:
        """A boolean command that may also be an expression (leave_in_queue)."""
        v = self.get(name)
        if v is None:
            return None
        if v.lower() in _TRUE:
            return True
        if v.lower() in _FALSE:
            return False
        return self.expr(name)

    def choice(self, name: str, choices: Sequence[str], default: str) -> str:
        """A value that must be one of `choices` (compared without case)."""
        value = self.get(name) or default
        for c in choices:
            if value.lower() == c.lower():
                return c
        raise SubmitError(
            f"{self.where(name)}: {name} must be one of {', '.join(choices)}, not {value!r}"
        )

    def submit_dir(self) -> str:
        return self.facts["cwd"]

    def iwd(self) -> str:
        """initialdir against the submit directory, joined as HTCondor joins it (a trailing
        slash stays); it must exist."""
        d = self.get("initialdir")
        if d is None:
            return self.facts["cwd"]
        full = squeeze(d if os.path.isabs(d) else os.path.join(self.facts["cwd"], d))
        if not os.path.isdir(full):
            raise SubmitError(f"{self.where('initialdir')}: No such directory: {full}")
        return full

    def in_iwd(self, path: str) -> str:
        return squeeze(path if os.path.isabs(path) else os.path.join(self.iwd(), path))

    def expr(self, name: str) -> Expr | None:
        v = self.get(name)
        return None if v is None else expression(v, name, self.where(name))

    def parse(self, text: str, name: str) -> Expr:
        """An expression a row composed from the command `name` (errors name its line)."""
        return expression(text, name, self.where(name))

    def literal_or_expr(self, name: str) -> Any:
        """A plain number, boolean or string literal as itself, else the expression."""
        e = self.expr(name)
        return None if e is None else literal(e)


def squeeze(path: str) -> str:
    """Repeated slashes as one, as HTCondor writes paths."""
    return re.sub("/{2,}", "/", path)


def expression(text: str, name: str, where: str) -> Expr:
    try:
        return Expr(str(ExprTree(text)))
    except ValueError as e:
        raise SubmitError(f"{where}: {name} is not a valid expression: {e}") from None


def literal(e: Expr) -> Any:
    """An expression that is one literal as its Python value (it travels as a literal)."""
    text = e.text
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        value = ExprTree(text).eval()
        return value if isinstance(value, str) else e
    try:
        return int(text)
    except ValueError:
        pass
    try:
        if any(c in text for c in ".eE") and not text.startswith(("e", "E")):
            return float(text)
    except ValueError:
        pass
    return e


def references(names: Iterable[str]) -> list[str]:
    """One of each name whatever its case, as first written, in case-blind order: what
    HTCondor's classad::References (a case-blind set) holds of them."""
    kept: dict[str, str] = {}
    for name in names:
        kept.setdefault(name.lower(), name)
    return sorted(kept.values(), key=str.lower)


def unquoted(text: str) -> str:
    """A string value as HTCondor stores it: surrounding double quotes taken off."""
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        return text[1:-1]
    return text


def signal_name(v: Values, command: str) -> str:
    """A signal by number or by name, as its name (9 and sigkill are both SIGKILL)."""
    raw = unquoted(v.get(command) or "").strip()
    try:
        sig = signal.Signals(int(raw)) if raw.isdigit() else signal.Signals[raw.upper()]
    except (KeyError, ValueError):
        raise SubmitError(f"{v.where(command)}: invalid signal {raw}") from None
    return sig.name
