"""`DAG.metrics`: what the run did, as HTCondor's DAGMan reports it (version 2 of its
metrics file, its default), written when DAGMan exits."""

from __future__ import annotations

import json
import time
from pathlib import Path

from condorx.dagman import outcome
from condorx.dagman.engine import Engine
from condorx.dagman.node_state import DONE, ERROR


def write(
    path: Path, engine: Engine, start: float, code: int, ids: tuple[str, str], rescue: int
) -> None:
    """`ids`: this DAGMan job's id and its parent DAGMan's (or "")."""
    end = time.time()
    kinds = {"JOB": "nodes", "FINAL": "nodes", "PROVISIONER": "nodes"}
    kinds.update({"SUBDAG": "dag_nodes", "SERVICE": "service_nodes"})
    counts = {k: [0, 0, 0] for k in ("nodes", "dag_nodes", "service_nodes")}
    for name, node in engine.dag.nodes.items():
        row = counts[kinds.get(node.kind, "nodes")]
        row[0] += 1
        status = engine.states[name].status
        row[1] += status == ERROR
        row[2] += status == DONE
    report: dict[str, object] = {
        "client": "condor_dagman",
        "version": "25.14.1",
        "type": "metrics",
        "metrics_version": 2,
        "start_time": round(start, 3),
        "end_time": round(end, 3),
        "duration": round(end - start, 3),
        "exitcode": code,
        "dagman_id": ids[0],
        "parent_dagman_id": ids[1],
        "rescue_dag_number": rescue,
        "has_final_node": engine.dag.final is not None,
    }
    for kind, (total, failed, succeeded) in counts.items():
        report[kind] = total
        report[f"{kind}_failed"] = failed
        report[f"{kind}_succeeded"] = succeeded
    report["provisioner_nodes"] = sum(n.kind == "PROVISIONER" for n in engine.dag.nodes.values())
    report["total_nodes"] = sum(row[0] for row in counts.values())
    report["total_nodes_run"] = sum(row[1] + row[2] for row in counts.values())
    report["jobs_submitted"] = engine.jobs_submitted
    report["jobs_succeeded"] = engine.jobs_completed
    report["jobs_failed"] = engine.jobs_submitted - engine.jobs_completed
    report["DagStatus"] = int(outcome.final_status(engine))
    path.write_text(json.dumps(report, indent=4) + "\n")
