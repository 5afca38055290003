"""Macro expansion: values are expanded when read, by textual substitution and rescanning.

After each substitution the whole value is scanned again from its start, so text produced
by an expansion can form a new reference. A referenced name's own value is expanded first
(recursively) so that a cycle between names shows up as a name met twice on the way down;
HTCondor itself never finishes such a value, condorx says which names form the cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from condorx.language.config.errors import ConfigError
from condorx.language.config.functions import FunctionContext, call
from condorx.language.config.scan import Ref, find_ref, is_name, ref_at, resolve_dollars

# Functions whose (first) argument is a parameter name: a self reference there is
# replaced when the line is read, like $(NAME).
NAME_FUNCTIONS = frozenset({"F", "BASENAME", "STRING", "INT", "REAL", "EVAL", "SUBSTR"})
_MAX_STEPS = 100_000
_MAX_LENGTH = 1_000_000

Lookup = Callable[[str], str | None]


class Expander:
    """Expands text against a name lookup (raw values) and an environment."""

    def __init__(self, lookup: Lookup, environ: Mapping[str, str]) -> None:
        self._lookup = lookup
        self._environ = environ

    def expand(self, text: str, name: str | None = None) -> str:
        """The fully expanded text; name (when text is a parameter's value) seeds the
        cycle check so that a value referring back to its own name is reported."""
        stack = (name.upper(),) if name else ()
        return resolve_dollars(self._expand(text, stack))

    def value_of(self, name: str, stack: tuple[str, ...] = ()) -> str | None:
        """The expanded value of a name with a non-empty value, else None."""
        if not is_name(name):
            return None
        raw = self._lookup(name)
        if not raw:
            return None
        key = name.upper()
        if key in stack:
            cycle = " -> ".join((*stack[stack.index(key) :], key))
            raise ConfigError(f"macro cycle: {cycle} never finishes expanding")
        return self._expand(raw, (*stack, key))

    def _expand(self, text: str, stack: tuple[str, ...]) -> str:
        steps = 0
        while True:
            ref = find_ref(text)
            if ref is None:
                return text
            text = text[: ref.start] + self._replacement(ref, stack) + text[ref.end :]
            steps += 1
            if steps > _MAX_STEPS or len(text) > _MAX_LENGTH:
                what = stack[0] if stack else "a value"
                raise ConfigError(f"expanding {what} never finishes (it keeps growing)")

    def _replacement(self, ref: Ref, stack: tuple[str, ...]) -> str:
        if ref.func:
            return call(ref, self._context(stack))
        if not ref.name:
            return ref.default or ""
        value = self.value_of(ref.name, stack)
        if value is None:
            return ref.default if ref.default is not None else ""
        return value

    def _context(
        self,
        stack: tuple[str, ...],
        overrides: Mapping[str, str] | None = None,
    ) -> FunctionContext:
        def value_of(name: str) -> str | None:
            if overrides is not None and name.upper() in overrides:
                raw = overrides[name.upper()]
                return self._expand(raw, stack) if raw else None
            return self.value_of(name, stack)

        return FunctionContext(value_of=value_of, environ=self._environ)

    def replace_self(self, value: str, self_names: frozenset[str], previous: str) -> str:
        """Replace the references to the name being defined by its value so far.

        Only references at the top level count: one inside another reference's default
        (``X = $(Y:$(X))``) stays, and loops when read, as in HTCondor.
        """
        i = value.find("$")
        while 0 <= i < len(value):
            if value.startswith("$$", i):
                i = value.find("$", i + 2)
                continue
            ref = ref_at(value, i)
            if ref is None:
                i = value.find("$", i + 1)
                continue
            replacement: str | None = None
            if not ref.func and ref.name.upper() in self_names:
                replacement = previous or (ref.default or "")
            elif ref.func in NAME_FUNCTIONS and self._first_arg(ref) in self_names:
                overrides = {n: previous for n in self_names}
                replacement = call(ref, self._context((), overrides))
            if replacement is None:
                i = value.find("$", ref.end)
                continue
            value = value[:i] + replacement + value[ref.end :]
            i = value.find("$", i + len(replacement))
        return value

    @staticmethod
    def _first_arg(ref: Ref) -> str:
        return ref.body.split(",", 1)[0].strip().upper()
