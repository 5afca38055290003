"""A DAG of --nodes nodes of /bin/true run by condor_dagman on a personal pool of --slots
slots, beside the same pool's plain-job throughput (pool_bench's: --nodes jobs of
/bin/true in one cluster), in the same run. Target: the DAG completes at no less than
half the plain jobs' rate.

    python benches/dagman_bench.py [--nodes 10000] [--slots 16] [--layers 1]

--layers L splits the nodes into L layers, each node a child of every node of the layer
before (L = 1: no edges). Both runs time from the submission's acknowledgement until the
last job has left the queue (for the DAG: until the DAGMan job itself has).

HTCondor's DAGMan submits at most DAGMAN_MAX_SUBMITS_PER_INTERVAL (100) node jobs per
DAGMAN_USER_LOG_SCAN_INTERVAL (5 s), 20 nodes/s, whatever the pool; the DAG run here
raises both knobs (1,000 per 1 s), as a site running DAGs of short jobs does, and the
ceiling the defaults would put on it is printed beside the figures. An HTCondor pool,
the named peer, cannot run here (the pip wheel has no daemons).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from condorx.host.procfs import stat_fields
from condorx.testing.pool import LocalPool

KNOBS = "DAGMAN_MAX_SUBMITS_PER_INTERVAL = 1000\nDAGMAN_USER_LOG_SCAN_INTERVAL = 1\n"
NODE = "executable = /bin/true\nshould_transfer_files = NO\nlog = node.log\nqueue\n"


def pool_config(slots: int, jobs: int) -> str:
    return (
        f"NUM_CPUS = {slots}\nNUM_SLOTS = {slots}\nSTART = TRUE\n"
        "NEGOTIATOR_INTERVAL = 5\nUPDATE_INTERVAL = 5\nSCHEDD_INTERVAL = 5\n"
        f"MAX_JOBS_PER_SUBMISSION = {max(jobs, 20000)}\nMAX_JOBS_PER_OWNER = 10000000\n{KNOBS}"
    )


def cpu(pid: int) -> float:
    """A process's CPU seconds so far (user + system)."""
    fields = stat_fields(pid)
    assert fields is not None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def until_empty(pool: LocalPool) -> float:
    while pool.count_jobs():
        time.sleep(0.25)
    return time.perf_counter()


def plain(pool: LocalPool, jobs: int) -> float:
    _, acked = pool.condor_submit(
        f"executable = /bin/true\nshould_transfer_files = NO\nlog = plain.log\nqueue {jobs}\n"
    )
    return jobs / (until_empty(pool) - acked)


def dag_text(nodes: int, layers: int) -> str:
    per = -(-nodes // layers)
    names = [f"n{i}" for i in range(nodes)]
    lines = [f"JOB {n} node.sub" for n in names]
    groups = [names[i : i + per] for i in range(0, nodes, per)]
    for up, down in zip(groups, groups[1:], strict=False):
        lines.append(f"PARENT {' '.join(up)} CHILD {' '.join(down)}")
    return "\n".join(lines) + "\n"


def dag(pool: LocalPool, nodes: int, layers: int) -> tuple[float, float]:
    work = pool.root / "dag"
    work.mkdir()
    (work / "node.sub").write_text(NODE)
    (work / "big.dag").write_text(dag_text(nodes, layers))
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "condorx.cli.submit_dag", "big.dag"],
        env=pool.env,
        cwd=work,
        check=True,
        capture_output=True,
    )
    acked = time.perf_counter()
    end = until_empty(pool)
    return acked - t0, nodes / (end - acked)


def dagman_seconds(pool: LocalPool) -> float:
    """The DAGMan job's CPU seconds, from its history record."""
    r = subprocess.run(
        [sys.executable, "-m", "condorx.cli.history", "-constraint", "JobUniverse == 7"]
        + ["-af", "RemoteUserCpu + RemoteSysCpu"],
        env=pool.env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(r.stdout.split()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--slots", type=int, default=16)
    ap.add_argument("--layers", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cx-dagman-bench-") as d:
        pool = LocalPool(Path(d), pool_config(args.slots, args.nodes))
        pool.env["PATH"] = f"{Path(sys.executable).parent}:{pool.env.get('PATH', '')}"
        pool.start("collector", "negotiator", "startd", "schedd")
        try:
            schedd = pool.daemon("schedd").proc
            assert schedd is not None
            c0 = cpu(schedd.pid)
            plain_rate = plain(pool, args.nodes)
            c1 = cpu(schedd.pid)
            submit_s, dag_rate = dag(pool, args.nodes, args.layers)
            c2 = cpu(schedd.pid)
            dagman_cpu = dagman_seconds(pool)
        finally:
            pool.stop()
    ratio = dag_rate / plain_rate
    print(f"\n{args.nodes:,} jobs of /bin/true on a personal pool of {args.slots} slots\n")
    print(f"plain jobs, one cluster (pool_bench)     {plain_rate:8.1f} jobs/s")
    print(f"DAG, {args.layers} layer(s), condor_dagman         {dag_rate:8.1f} nodes/s")
    print(f"condor_submit_dag (acknowledged)         {submit_s:8.2f} s")
    verdict = "PASS" if ratio >= 0.5 else "FAIL"
    print(f"DAG / plain                              {ratio:8.2f}      target >= 0.50: {verdict}")
    print("ceiling of HTCondor's default throttle      20.0 nodes/s (100 submits per 5 s)")
    per = 1000 / args.nodes
    print(f"schedd CPU per job: plain {(c1 - c0) * per:.2f} ms, DAG {(c2 - c1) * per:.2f} ms")
    print(f"condor_dagman CPU per node                {dagman_cpu * per:8.2f} ms")


if __name__ == "__main__":
    main()
