"""The files a DAG names that are not there yet: each node's submit file (or sub-DAG file)
and each script's program, looked for where condor_dagman will look for them (the node's
directory). HTCondor's condor_submit_dag does not look: a PRE script often writes its
node's submit file. So each is a warning at submission, and condor_dagman fails the node
only if its file is still missing when it is due."""

from __future__ import annotations

import os
from pathlib import Path

from condorx.language.dag.model import Dag


def missing(dag: Dag, base: Path | None = None) -> list[str]:
    """A line for each submit file, DAG file or script program not there now, naming the
    DAG file and line of its node."""
    root = base if base is not None else Path.cwd()
    out = []
    for node in dag.nodes.values():
        where = root / (node.directory or ".")
        at = f"{node.source}, line {node.line}: node {node.name}'s"
        needs_file = not node.noop and node.inline is None
        if needs_file and node.submit not in dag.submit_descriptions:
            if not (where / node.submit).is_file():
                what = "DAG file" if node.kind == "SUBDAG" else "submit file"
                out.append(f"{at} {what} {node.submit} does not exist (yet)")
        for script in node.scripts.values():
            program = script.command.split()[0] if script.command.split() else ""
            path = Path(program) if os.path.isabs(program) else where / program
            if not path.is_file():
                out.append(f"{at} {script.kind} script {program} does not exist (yet)")
    return out
