"""A DAG of --nodes nodes (each with a VARS line; a chain of PARENT/CHILD pairs; a RETRY
for all nodes) read by condorx's DAG parser: how long it takes (target: under 1 s for
100,000 nodes) and how much memory DAGMan holds per node, the parsed DAG and its run's
state together (target: under 1 KiB).

    python benches/dag_bench.py [--nodes 100000]

HTCondor's condor_dagman is not available here to parse the same file beside it.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from pathlib import Path

from condorx.dagman.engine import Engine
from condorx.language.dag.parse import parse


def dag_text(nodes: int) -> str:
    lines = [f"JOB n{i} job.sub" for i in range(nodes)]
    lines += [f'VARS n{i} item="{i}" name="node n{i}"' for i in range(nodes)]
    lines += [f"PARENT n{i} CHILD n{i + 1}" for i in range(0, nodes - 1, 2)]
    lines.append("RETRY ALL_NODES 2")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nodes", type=int, default=100_000)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="cx-dag-bench-") as d:
        path = Path(d) / "big.dag"
        path.write_text(dag_text(args.nodes))
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            parse(path)
            runs.append(time.perf_counter() - t0)
        tracemalloc.start()
        dag = parse(path)
        parsed, _ = tracemalloc.get_traced_memory()
        engine = Engine(dag)
        engine.start()
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    n = len(dag.nodes)
    best = min(runs)
    print(
        f"parse, {n:,} nodes:   {best:.2f} s (runs {', '.join(f'{r:.2f}' for r in runs)})"
        f"   target < 1 s {'✔' if best < 1 else '✘'}"
    )
    print(f"parsed DAG per node:  {parsed / n:.0f} B")
    per = held / n
    ok = "✔" if per < 1024 else "✘"
    print(f"DAGMan holds per node: {per:.0f} B (DAG and run state)   target < 1024 B {ok}")
    assert len(engine.states) == n


if __name__ == "__main__":
    main()
