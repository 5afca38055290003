"""The one exception the configuration reader raises."""

from __future__ import annotations

from condorx.errors import CondorxError


class ConfigError(CondorxError):
    """A configuration HTCondor would refuse, or a value that cannot be expanded.

    Carries the file and line it comes from (either may be missing, e.g. for a cycle found
    while answering a query); ``str()`` reads ``condor_config:12: what is wrong``.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        super().__init__(self._render())

    def _render(self) -> str:
        if self.file is None:
            return self.message
        if self.line is None:
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}: {self.message}"

    def __str__(self) -> str:
        return self._render()
