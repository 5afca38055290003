"""The submit description's error: what is wrong and where (file and line)."""

from __future__ import annotations

from condorx.errors import CondorxError


class SubmitError(CondorxError):
    """A submit description that cannot be turned into jobs; the message names the line."""
