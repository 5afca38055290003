"""Physical lines to logical statements.

HTCondor trims every physical line at both ends, joins a line ending in a backslash to
the next one (no blank added), and treats ``#`` as a comment only at the start of a line.
Inside a continuation a ``#`` line is special; how depends on the ``#opt:`` pragma in force:

* default: the line is dropped except its last character, so it continues the statement
  only when that character is a backslash (HTCondor's historical quirk);
* ``#opt:newcomment``: the line is dropped, continuing only if it ends in a backslash;
* ``#opt:oldcomment``: the line is ordinary text.

The last line of a file without a final newline is kept as written (trailing blanks and a
final backslash included): HTCondor only trims lines it reads up to a newline.
"""

from __future__ import annotations

from condorx.language.config.errors import ConfigError
from condorx.record import record


@record(frozen=True)
class Statement:
    text: str
    line: int  # the physical line the statement starts on (1-based)


class LineSource:
    """Hands out the logical statements of one file's text, in order."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        raw = text.split("\n")
        self._final_unterminated = not text.endswith("\n")
        if not self._final_unterminated:
            raw.pop()  # the empty string after the final newline
        self._raw = raw
        self._pos = 0
        self._comment_mode = "quirk"
        self.line = 0  # last physical line consumed

    def _physical(self) -> tuple[str, bool] | None:
        """The next physical line, trimmed as HTCondor trims it, and whether it was the
        unterminated last line (kept as written, so never a continuation)."""
        if self._pos >= len(self._raw):
            return None
        text = self._raw[self._pos]
        self._pos += 1
        self.line = self._pos
        last = self._final_unterminated and self._pos == len(self._raw)
        if last:
            return text.lstrip(), True
        return text.strip(), False

    def physical(self) -> str | None:
        """The next physical line as it stands, trimmed (a blank one too); None at the end."""
        got = self._physical()
        return None if got is None else got[0]

    def _pragma(self, text: str) -> None:
        if text.startswith("#opt:"):
            opt = text[5:].strip().lower()
            if opt in ("oldcomment", "newcomment"):
                self._comment_mode = opt[:3]

    def next(self) -> Statement | None:
        """The next statement, skipping blank and comment lines; None at end of file."""
        while True:
            got = self._physical()
            if got is None:
                return None
            text, last = got
            if not text:
                continue
            if text.startswith("#"):
                self._pragma(text)
                continue  # a comment that starts a statement never continues
            start = self.line
            if last or not text.endswith("\\"):
                return Statement(text, start)
            return Statement(self._continue(text[:-1]), start)

    def _continue(self, head: str) -> str:
        parts = [head]
        while True:
            got = self._physical()
            if got is None:
                break
            text, last = got
            if not text:
                break
            if text.startswith("#") and self._comment_mode != "old":
                keep = text[-1] if self._comment_mode == "quirk" else ""
                if text.endswith("\\"):
                    continue
                parts.append(keep)
                break
            if last or not text.endswith("\\"):
                parts.append(text)
                break
            parts.append(text[:-1])
        return "".join(parts)

    def heredoc(self, tag: str) -> str:
        """The statements up to the line ``@tag``, joined by newlines."""
        start = self.line
        body: list[str] = []
        while True:
            stmt = self.next()
            if stmt is None:
                raise ConfigError(
                    f"end of file while looking for '@{tag}' (the value begun on line {start})",
                    self.source,
                    self.line,
                )
            if stmt.text.rstrip() == "@" + tag:
                return "\n".join(body)
            body.append(stmt.text)
