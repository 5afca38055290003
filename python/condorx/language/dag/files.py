"""What a DAG needs on disk before it is submitted: each node's submit file (or sub-DAG
file) and each script's program, found where condor_dagman will look for them (the
node's directory). A missing one is an error naming the DAG file and line, so that
nothing is submitted that cannot run."""

from __future__ import annotations

import os
from pathlib import Path

from condorx.language.dag.errors import DagError
from condorx.language.dag.model import Dag


def check(dag: Dag, base: Path | None = None) -> None:
    """DagError for the first node whose submit file or script program is missing."""
    root = base if base is not None else Path.cwd()
    for node in dag.nodes.values():
        where = root / (node.directory or ".")
        needs_file = not node.noop and node.inline is None
        if needs_file and node.submit not in dag.submit_descriptions:
            if not (where / node.submit).is_file():
                what = "DAG file" if node.kind == "SUBDAG" else "submit file"
                raise DagError(
                    f"{node.source}, line {node.line}: node {node.name}'s {what}"
                    f" {node.submit} does not exist"
                )
        for script in node.scripts.values():
            program = script.command.split()[0] if script.command.split() else ""
            path = Path(program) if os.path.isabs(program) else where / program
            if not path.is_file():
                raise DagError(
                    f"{node.source}, line {node.line}: node {node.name}'s {script.kind}"
                    f" script {program} does not exist"
                )
