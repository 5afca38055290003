"""condor_dagman's own error."""

from __future__ import annotations


class DagmanError(Exception):
    """DAGMan cannot run this DAG (it does not parse, or another DAGMan runs it)."""
