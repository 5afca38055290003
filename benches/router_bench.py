"""The job router's cost of one polling pass over a large queue.

    python benches/router_bench.py [--jobs 100000]

Starts a schedd with --jobs idle vanilla jobs (one cluster, submitted with
condor_submit) and times, in this process, the router's own polling pass (its `poll`,
talking to that schedd) three ways:

- every route full: the pass counts each route's copies and stops;
- routes with room (3 routes, MaxIdleJobs 50 each): it reads idle jobs until the room is
  taken, routes 150 of them in one transaction, and stops;
- no route takes any job (their requirements are false for all): it reads and judges
  the whole queue, the worst case.

The issue's target: a polling pass < 1 s. Routing to a second pool (the issue's 10,000
jobs over 3 routes, >= 200 jobs/s) waits for the `condor` grid type.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from condorx.daemons.job_router.service import Router
from condorx.testing.pool import LocalPool

ROUTES = """
JOB_ROUTER_DEFAULTS = [ requirements = {req}; MaxIdleJobs = {idle}; MaxJobs = {jobs}; \\
    TargetUniverse = 5; set_Routed = true; ]
JOB_ROUTER_ENTRIES = [ name = "A"; ] [ name = "B"; ] [ name = "C"; ]
"""


def timed_pass(pool: LocalPool, req: str, idle: int, jobs: int) -> tuple[float, int]:
    with open(pool.config_file, "a") as f:
        f.write(ROUTES.format(req=req, idle=idle, jobs=jobs))
    pool.reload()
    router = Router(pool.cfg)
    router.load_table()
    t0 = time.perf_counter()
    routed = trio.run(router.poll)
    return time.perf_counter() - t0, routed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="condorx-router-bench-") as tmp:
        root = Path(tmp)
        pool = LocalPool(root, f"MAX_JOBS_PER_SUBMISSION = {args.jobs}\nSCHEDD_INTERVAL = 300\n")
        try:
            pool.start("schedd")
            (root / "job.sub").write_text(f"executable = /bin/true\nqueue {args.jobs}\n")
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "condorx.cli.submit", "job.sub"],
                env=pool.env,
                cwd=root,
                check=True,
                capture_output=True,
            )
            print(f"queue: {args.jobs} idle jobs, submitted in {time.perf_counter() - t0:.1f} s")
            cases = [
                ("routes full", "true", 0, 0),
                ("no route takes any job", "false", 50, 1000),
                ("routes with room (150)", "true", 50, 1000),
            ]
            for label, req, idle, jobs in cases:
                seconds, routed = timed_pass(pool, req, idle, jobs)
                verdict = "PASS" if seconds < 1.0 else "FAIL"
                print(f"  {label:<24} {seconds:7.3f} s  routed {routed:>4}  (< 1 s: {verdict})")
        finally:
            pool.stop()


if __name__ == "__main__":
    main()
