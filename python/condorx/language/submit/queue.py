"""The `queue` statement: how many procs, and the items each one is given.

    queue                           one proc
    queue 5                         five procs
    queue [N] [vars] in (a, b, c)   one group of N per item (inline list, may span lines)
    queue [N] [vars] from file      one group per line of a file (or `from ( ... )` lines)
    queue [N] [vars] matching [files|dirs] globs...

Variables default to `Item`; with several, each item is split on commas or blanks, the last
variable taking the rest. Each proc gets Step (0..N-1 within its item), ItemIndex and Row.
"""

from __future__ import annotations

import os
import re

from condorx.language.argsyntax import SyntaxProblem, is_v2, submit_v2
from condorx.language.submit.errors import SubmitError
from condorx.record import field, record

# What a row is trimmed of: not str.strip()'s whitespace, which takes the unit separator.
_BLANKS = " \t\r\n"
_FORM = re.compile(r"\s(in|from|matching)(?=\s|\(|$)", re.IGNORECASE)


@record
class QueueSpec:
    count: int = 1
    vars: list[str] = field(default_factory=lambda: ["Item"])
    items: list[str] | None = None  # None: plain `queue N`

    def procs(self) -> list[dict[str, str]]:
        """The macro values of each proc, in order."""
        out: list[dict[str, str]] = []
        if self.items is None:
            return [{"Step": str(s), "ItemIndex": "0", "Row": "0"} for s in range(self.count)]
        values = [""] * len(self.vars)
        for index, item in enumerate(self.items):
            # A blank row sets no variable: its procs keep the row before's values, as
            # condor_submit's rows do (SubmitStepFromQArgs::select_rowdata).
            if item.strip(_BLANKS):
                values = _split_item(item, len(self.vars))
            for step in range(self.count):
                out.append(self._vars(values, step, index))
        return out

    @property
    def total(self) -> int:
        """How many procs the statement makes."""
        return self.count * (1 if self.items is None else len(self.items))

    def proc_vars(self, proc: int) -> dict[str, str]:
        """One proc's macro values (`procs()[proc]`, without making the others')."""
        row, step = divmod(proc, self.count)
        if self.items is None:
            return {"Step": str(step), "ItemIndex": "0", "Row": "0"}
        values = [""] * len(self.vars)
        for back in range(row, -1, -1):  # a blank row keeps the values of the one before
            if self.items[back].strip(_BLANKS):
                values = _split_item(self.items[back], len(self.vars))
                break
        return self._vars(values, step, row)

    def _vars(self, values: list[str], step: int, row: int) -> dict[str, str]:
        m = dict(zip(self.vars, values, strict=True))
        m.update({"Step": str(step), "ItemIndex": str(row), "Row": str(row)})
        return m


def parse(args: str, where: str, base: str, rows: list[str] | None = None) -> QueueSpec:
    """Parse what follows `queue`; `base` resolves `from file` and `matching` globs.
    `rows`, when given, are the lines of a `from` file already read (a job factory's,
    which its submitter sent with it)."""
    text = args.strip()
    m = _FORM.search(" " + text)
    if m is None:
        return QueueSpec(count=_count(text, where))
    kind = m.group(1).lower()
    head = (" " + text)[: m.start()].strip()
    rest = (" " + text)[m.end() :].strip()
    count, names = _head(head, where)
    spec = QueueSpec(count=count, vars=names)
    if not rest and kind == "from":  # `from $(undefined)`: no rows, so no procs
        spec.items = []
        return spec
    rest, pick = _slice(rest, where)
    if kind == "in":
        spec.items = _inline_items(rest, where)
    elif kind == "from" and rows is not None:
        spec.items = [ln.strip(_BLANKS) for ln in rows]
    elif kind == "from":
        spec.items = _from_items(rest, where, base)
    else:
        spec.items = _matching(rest, where, base)
    spec.items = spec.items[pick]
    return spec


_SLICE = re.compile(r"^\[\s*(-?\d*)\s*(?::\s*(-?\d*)\s*)?(?::\s*(-?\d*)\s*)?\]")


def _slice(rest: str, where: str) -> tuple[str, slice]:
    """An optional Python-style `[start:end:step]` before the items."""
    m = _SLICE.match(rest)
    if m is None:
        return rest, slice(None)
    start, end, step = (int(g) if g else None for g in m.groups())
    if step == 0:
        raise SubmitError(f"{where}: a queue slice's step must not be 0")
    return rest[m.end() :].strip(), slice(start, end, step)


def _count(text: str, where: str) -> int:
    if not text:
        return 1
    try:
        n = int(text)
    except ValueError:
        raise SubmitError(f"{where}: queue count must be a number, not {text!r}") from None
    if n < 0:
        raise SubmitError(f"{where}: queue count must not be negative")
    return n


def _head(head: str, where: str) -> tuple[int, list[str]]:
    words = head.replace(",", " ").split()
    count = 1
    if words and words[0].lstrip("-").isdigit():
        count = _count(words.pop(0), where)
    for w in words:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", w):
            raise SubmitError(f"{where}: bad queue variable name {w!r}")
    return count, words or ["Item"]


def _inline_items(rest: str, where: str) -> list[str]:
    """`in a, b, c` or `in (a b c)`, over several lines too: commas or blanks separate items."""
    if rest.startswith("("):
        if not rest.endswith(")"):
            raise SubmitError(f"{where}: queue ... in ( has no closing )")
        rest = rest[1:-1]
    lines = [ln for ln in rest.splitlines() if not ln.strip().startswith("#")]
    return [i for ln in lines for i in re.split(r"[,\s]+", ln) if i]


def _from_items(rest: str, where: str, base: str) -> list[str]:
    if rest.startswith("("):
        if not rest.endswith(")"):
            raise SubmitError(f"{where}: queue ... from ( has no closing )")
        lines = rest[1:-1].splitlines()
        # A blank line is a row (of no values) here, a `#` line a comment.
        inner = [ln.strip(_BLANKS) for ln in lines if not ln.strip().startswith("#")]
        while inner and not inner[0]:  # what followed `(` on its own line
            inner.pop(0)
        return inner
    if rest.endswith("|"):
        text = _command_output(rest.rstrip("| "), where, base)
    else:
        path = os.path.join(base, rest)
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            raise SubmitError(
                f"{where}: cannot read queue items from {path}: {e.strerror}"
            ) from None
        except UnicodeDecodeError:
            raise SubmitError(f"{where}: queue items file {path} is not text") from None
    # Every line is a row, as HTCondor reads it: a `#` line too, and a blank one.
    lines = text.split("\n")
    if lines[-1] == "":  # what follows the last newline (or an empty file)
        lines.pop()
    return [ln.strip(_BLANKS) for ln in lines]


def _command_output(cmd: str, where: str, base: str) -> str:
    """`queue ... from COMMAND |`: the rows are what the command prints. It runs as
    HTCondor runs it: its words in either argument syntax, no shell, in the submit
    directory; a command that fails fails the submission."""
    try:
        argv = submit_v2(cmd) if is_v2(cmd) else cmd.split()
    except SyntaxProblem as e:
        raise SubmitError(f"{where}: {e}") from None
    if not argv:
        raise SubmitError(f"{where}: queue ... from |: no command to run")
    import subprocess  # (few submit files run a command: condor_submit starts without it)

    try:
        done = subprocess.run(
            argv, cwd=base, stdin=subprocess.DEVNULL, capture_output=True, check=False
        )
    except OSError as e:
        raise SubmitError(f"{where}: cannot run {argv[0]}: {e.strerror}") from None
    if done.returncode != 0:
        raise SubmitError(
            f'{where}: Error "{cmd} |": command terminated with exit code {done.returncode}'
        )
    return done.stdout.decode(errors="replace")


def _matching(rest: str, where: str, base: str) -> list[str]:
    import glob  # (as subprocess for `from COMMAND |`: only this form needs it)

    words = rest.split()
    want = None
    if words and words[0].lower() in ("files", "dirs", "any"):
        want = words.pop(0).lower()
    if not words:
        raise SubmitError(f"{where}: queue ... matching needs a pattern")
    found: list[str] = []
    for pattern in words:
        for name in sorted(glob.glob(pattern, root_dir=base)):
            full = os.path.join(base, name)
            if want == "files" and not os.path.isfile(full):
                continue
            if want == "dirs" and not os.path.isdir(full):
                continue
            if os.path.isdir(full):
                name = name.rstrip("/") + "/"  # HTCondor names a matched directory so
            if name not in found:
                found.append(name)
    return found


def _split_item(item: str, n: int) -> list[str]:
    if n == 1:
        return [item]
    if "\x1f" in item:  # the unit separator (HTCondor's bindings send rows so): only it
        parts = [p.strip(_BLANKS) for p in item.split("\x1f", n - 1)]
        return parts + [""] * (n - len(parts))
    parts = re.split(r"[,\s]+", item.strip(), maxsplit=n - 1)
    return parts + [""] * (n - len(parts))
