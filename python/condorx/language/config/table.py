"""The macro table: each defined name's unexpanded value and where it was set."""

from __future__ import annotations

from condorx.record import record


@record(frozen=True)
class Entry:
    name: str  # as first written (names ignore case; this keeps the spelling for -dump)
    raw: str
    source: str  # a file path, "environment" or "use CATEGORY:NAME"
    line: int | None


class MacroTable:
    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}

    def set(self, name: str, raw: str, source: str, line: int | None) -> None:
        old = self._entries.get(name.upper())
        spelling = old.name if old is not None else name
        self._entries[name.upper()] = Entry(spelling, raw, source, line)

    def get(self, name: str) -> Entry | None:
        return self._entries.get(name.upper())

    def entries(self) -> list[Entry]:
        return list(self._entries.values())
