"""The error a DAG file that cannot be run gets: it names the file and the line."""

from __future__ import annotations

from condorx.errors import CondorxError


class DagError(CondorxError):
    """A DAG file (or an option for it) that cannot be run, with where and why."""
