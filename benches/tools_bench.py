"""How long the command-line tools take to start and answer a small query, beside
`python -c pass` on the same machine (issue 30: under 100 ms of wall time and 60 ms of
CPU each).

    python benches/tools_bench.py [--runs 9]

Starts a collector and a schedd, then times, as a user's shell runs them (the installed
console scripts, each a new process): condor_q -totals, condor_q, condor_status,
condor_submit of one job, condor_rm of one job and condor_history. Each figure is the
median of --runs runs: the wall time until the process exits, and the CPU (user and
system) it used.

The package's modules are byte-compiled first, and the tools run with bytecode
caching on, as an installed package runs (pip byte-compiles what it installs): with
PYTHONDONTWRITEBYTECODE set, as some shells and CI images have it, each run compiles
every module it imports that has no .pyc yet.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import condorx
from condorx.testing.pool import LocalPool

TARGET_WALL_MS, TARGET_CPU_MS = 100.0, 60.0


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, cpu) in ms of one run of `argv`, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {r.returncode}: {r.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000


def median_of(runs: int, argv_of: object, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    samples = [timed(argv_of(i) if callable(argv_of) else argv_of, env, cwd) for i in range(runs)]  # type: ignore[arg-type]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="tools") as d:
        pool = LocalPool(Path(d), "")
        try:
            pool.start("collector", "schedd")
            (pool.root / "job.sub").write_text("executable = /bin/true\nqueue\n")
            # Jobs for condor_rm to remove, one a run, and a history for condor_history.
            pool.cli("condorx.cli.submit", "job.sub")
            pool.cli("condorx.cli.act:rm", "1.0")
            for _ in range(args.runs):
                pool.cli("condorx.cli.submit", "job.sub")
            env = {k: v for k, v in pool.env.items() if k != "PYTHONDONTWRITEBYTECODE"}
            cwd = pool.root
            package = Path(condorx.__file__).parent
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], env=env)
            rows = [
                ("python -c pass", [sys.executable, "-c", "pass"]),
                ("condor_q -totals", [str(bindir / "condor_q"), "-totals"]),
                ("condor_q", [str(bindir / "condor_q")]),
                ("condor_status", [str(bindir / "condor_status")]),
                ("condor_history", [str(bindir / "condor_history")]),
                ("condor_submit (1 job)", [str(bindir / "condor_submit"), "job.sub"]),
            ]
            results = [(name, median_of(args.runs, argv, env, cwd)) for name, argv in rows]
            rm = [str(bindir / "condor_rm")]
            results.append(
                ("condor_rm (1 job)", median_of(args.runs, lambda i: [*rm, f"{i + 2}.0"], env, cwd))
            )
        finally:
            pool.stop()
    print(f"\ntool start-up and a small query, median of {args.runs} runs (ms)")
    print(f"  {'':24} {'wall':>8} {'cpu':>8}")
    for name, (wall, cpu) in results:
        verdict = ""
        if name != "python -c pass":
            ok = wall < TARGET_WALL_MS and cpu < TARGET_CPU_MS
            verdict = "PASS" if ok else f"over ({TARGET_WALL_MS:.0f} / {TARGET_CPU_MS:.0f})"
        print(f"  {name:24} {wall:8.1f} {cpu:8.1f}  {verdict}")


if __name__ == "__main__":
    main()
