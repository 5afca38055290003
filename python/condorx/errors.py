"""The exception hierarchy: the exceptions defined in the Rust core, re-exported."""

from condorx._core import ClassAdParseError, CondorxError

__all__ = ["ClassAdParseError", "CondorxError"]
