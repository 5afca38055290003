"""Throughput of fetched work: many /bin/true jobs pulled by FETCH_WORK hooks.

    python benches/hooks_bench.py [--jobs 1000] [--slots 4]

Starts a collector and a startd with --slots slots in a scratch directory. Every slot
fetches with the same FETCH_WORK hook, a shell script that takes the next of --jobs job
ads from a spool directory (a rename, so each is taken once however many slots ask at
the same moment) and prints it; FetchWorkDelay is 0, so a claim fetches its next job
the moment the last one ends. Times from the startd's start until the StartLog shows
every job ended, and prints jobs per second, with the cost of the hook itself: the same
script run alone, as many times, by a process that does nothing else.

There is no named peer (HTCondor's startd cannot run here): the target is the issue's,
>= 100 jobs/s on this machine.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from condorx.testing.pool import LocalPool

TARGET = 100.0

FETCH = """#!/bin/sh
# Read the slot ad (the startd writes it) with the shell's own read: no process.
while read -r _; do :; done
for ad in {spool}/*.ad; do
    if mv "$ad" "$ad.taken" 2>/dev/null; then
        exec cat "$ad.taken"
    fi
done
"""

JOB = 'Cmd = "/bin/true"\nIwd = "{iwd}"\nJobUniverse = 5\nClusterId = {n}\nProcId = 0\n'


def make_work(root: Path, jobs: int) -> tuple[Path, Path]:
    spool = root / "spool-work"
    spool.mkdir()
    for n in range(jobs):
        (spool / f"{n:06d}.ad").write_text(JOB.format(iwd=root, n=n))
    hook = root / "fetch_work"
    hook.write_text(FETCH.format(spool=spool))
    hook.chmod(0o755)
    return spool, hook


def ended(pool: LocalPool) -> int:
    log = pool.root / "log" / "StartLog"
    return log.read_text().count("fetched job ended: exit code 0") if log.exists() else 0


def hook_alone(hook: Path, spool: Path, times: int) -> tuple[float, float]:
    """Wall and CPU seconds of one run of the hook, run `times` times in a row."""
    for n in range(times):
        (spool / f"alone{n:06d}.ad").write_text(JOB.format(iwd=spool, n=n))
    slot_ad = b'Name = "slot1@bench"\nState = "Unclaimed"\n'
    before = _children_cpu()
    t0 = time.perf_counter()
    for _ in range(times):
        subprocess.run([str(hook)], input=slot_ad, capture_output=True, check=True)
    wall = (time.perf_counter() - t0) / times
    return wall, (_children_cpu() - before) / times


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--slots", type=int, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="condorx-hooks-bench-") as tmp:
        root = Path(tmp)
        spool, hook = make_work(root, args.jobs)
        pool = LocalPool(
            root,
            f"NUM_CPUS = {args.slots}\nNUM_SLOTS = {args.slots}\nSTART = TRUE\n"
            "RunBenchmarks = false\nUPDATE_INTERVAL = 5\n"
            f"STARTD_JOB_HOOK_KEYWORD = BENCH\nBENCH_HOOK_FETCH_WORK = {hook}\n"
            "FetchWorkDelay = 0\n",
        )
        try:
            pool.start("collector")
            t0 = time.perf_counter()
            pool.start("startd")
            last, stalled = 0, time.perf_counter()
            while (done := ended(pool)) < args.jobs:
                if done != last:
                    last, stalled = done, time.perf_counter()
                elif time.perf_counter() - stalled > 60:
                    raise SystemExit(f"stalled at {done} of {args.jobs} jobs")
                time.sleep(0.05)
            elapsed = time.perf_counter() - t0
        finally:
            pool.stop()
        wall, cpu = hook_alone(hook, spool, min(args.jobs, 300))
    rate = args.jobs / elapsed
    print(f"fetched jobs: {args.jobs} of /bin/true through {args.slots} slots")
    print(f"  condorx      {elapsed:8.2f} s   {rate:8.1f} jobs/s   (target >= {TARGET:.0f})")
    print(f"  hook alone   {wall * 1000:8.2f} ms wall, {cpu * 1000:.2f} ms CPU per fetch")
    print(f"  per job      {1000 / rate * args.slots:8.2f} ms of a slot's time per job")
    print(f"  verdict      {'PASS' if rate >= TARGET else 'FAIL'}")


if __name__ == "__main__":
    main()
