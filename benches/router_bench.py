"""The job router: jobs routed to a second pool, and one polling pass over a large queue.

    python benches/router_bench.py [--routed 10000] [--jobs 100000]

Routing: pool A (a schedd and its job router) and pool B (a collector and a schedd, no
startd, so what arrives stays) on loopback, A's schedd holding a token B's admin made
for it. --routed idle jobs are submitted to A (untimed); then the router is started and
timed until B's queue holds every one of them: three `condor` routes to B's schedd, the
router making the copies, A's gridmanager submitting them to B with their files
spooled. The issue's target: >= 200 jobs/s.

Polling: starts a schedd with --jobs idle vanilla jobs (one cluster, submitted with
condor_submit) and times, in this process, the router's own polling pass (its `poll`,
talking to that schedd) three ways:

- every route full: the pass counts each route's copies and stops;
- routes with room (3 routes, MaxIdleJobs 50 each): it reads idle jobs until the room is
  taken, routes 150 of them in one transaction, and stops;
- no route takes any job (their requirements are false for all): it reads and judges
  the whole queue, the worst case.

The issue's target: a polling pass < 1 s.
"""

from __future__ import annotations

import argparse
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


GRID_ROUTES = """
JOB_ROUTER_POLLING_PERIOD = 1
GRIDMANAGER_JOB_PROBE_INTERVAL = 5
JOB_ROUTER_DEFAULTS = [ requirements = true; MaxIdleJobs = {n}; MaxJobs = {n}; \\
    GridResource = "condor b@loopback {collector}"; ]
JOB_ROUTER_ENTRIES = [ name = "B1"; ] [ name = "B2"; ] [ name = "B3"; ]
"""


def submit(pool: LocalPool, count: int) -> float:
    (pool.root / "job.sh").write_text("#!/bin/sh\necho routed\n")
    t0, t1 = pool.condor_submit(f"executable = job.sh\nqueue {count}\n")
    return t1 - t0


def routed_rate(count: int) -> None:
    with tempfile.TemporaryDirectory(prefix="condorx-router-bench-") as tmp:
        (Path(tmp) / "a").mkdir()
        (Path(tmp) / "b").mkdir()
        limits = (
            f"MAX_JOBS_PER_SUBMISSION = {count}\nMAX_JOBS_PER_OWNER = 10000000\n"
            "SCHEDD_INTERVAL = 300\n"
        )
        b = LocalPool(Path(tmp) / "b", limits + "SCHEDD_NAME = b@loopback\n")
        a = LocalPool(Path(tmp) / "a", limits + "SCHEDD_NAME = a@loopback\n")
        try:
            b.start("collector", "schedd")
            token = b.cli("condorx.cli.token:create", "-identity", "poola").stdout
            (a.root / "grid_tokens.d").mkdir(mode=0o700)
            (a.root / "grid_tokens.d" / "b").write_text(token)
            per_route = count // 3 + 1
            with open(a.config_file, "a") as f:
                f.write(GRID_ROUTES.format(n=per_route, collector=b.daemon("collector").address()))
            a.reload()
            a.start("schedd")
            took = submit(a, count)
            print(f"routing: {count} idle jobs in pool A (submitted in {took:.1f} s)")
            t0 = time.perf_counter()
            a.start("job_router")
            seen = 0
            while seen < count:
                time.sleep(0.5)
                seen = b.count_jobs()
                if time.perf_counter() - t0 > 600:
                    raise SystemExit(f"only {seen} of {count} jobs reached pool B in 600 s")
            seconds = time.perf_counter() - t0
            rate = count / seconds
            verdict = "PASS" if rate >= 200 else "FAIL"
            print(
                f"  {count} jobs routed over 3 routes to pool B in {seconds:.1f} s:"
                f" {rate:.0f} jobs/s  (>= 200 jobs/s: {verdict})"
            )
        finally:
            a.stop()
            b.stop()


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
    ap.add_argument("--routed", type=int, default=10_000)
    args = ap.parse_args()
    if args.routed:
        routed_rate(args.routed)
    if args.jobs:
        polling_pass(args.jobs)


def polling_pass(count: int) -> None:
    with tempfile.TemporaryDirectory(prefix="condorx-router-bench-") as tmp:
        root = Path(tmp)
        pool = LocalPool(
            root,
            f"MAX_JOBS_PER_SUBMISSION = {count}\nMAX_JOBS_PER_OWNER = 10000000\n"
            "SCHEDD_INTERVAL = 300\n",
        )
        try:
            pool.start("schedd")
            print(f"polling: {count} idle jobs, submitted in {submit(pool, count):.1f} s")
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
