"""ClassAd throughput: condorx next to HTCondor's own C++ library (classad2), in one run.

    python benches/classad_bench.py [--slots 100000] [--jobs 1000] [--match-slots 10000]

Workloads come from ../shared/bench/workload.py (old-syntax ads as condor_status -l and
condor_q -l print them). Three measurements, each printed with the ratio condorx/classad2
(throughput, so > 1 means condorx is faster):

1. parse N slot ads from text;
2. evaluate a job's Requirements with each of N slots as TARGET;
3. symmetric match of J jobs x S slots.

For 2 and 3 condorx is measured twice: through the same per-call Python loop that classad2
needs (`expr.eval(scope, target)`, `job.symmetricMatch(slot)`), and through its bulk calls
that stay in Rust (`eval_against`, `symmetric_matches`). classad2 has no bulk call; where a
full classad2 run would take minutes, it is timed on a prefix of the jobs and its rate used.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import classad2

from condorx import classad as cx

WORKLOAD = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "workload.py"


def workload(kind: str, n: int, out: Path, *extra: str) -> str:
    subprocess.run([sys.executable, str(WORKLOAD), kind, str(n), str(out), *extra], check=True)
    return out.read_text()


def timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t0


def row(name: str, unit: str, n_cx: int, t_cx: float, n_c2: int, t_c2: float) -> None:
    r_cx, r_c2 = n_cx / t_cx, n_c2 / t_c2
    print(f"{name:44s} {r_cx:14,.0f} {r_c2:14,.0f} {unit:10s} {r_cx / r_c2:7.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--slots", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=1_000)
    ap.add_argument("--match-slots", type=int, default=10_000)
    ap.add_argument(
        "--classad2-jobs", type=int, default=20, help="jobs timed for classad2's match rate"
    )
    a = ap.parse_args()

    classad2.ExprTree("[ a = 1 ]").eval()  # HTCondor's one-time set-up, outside the timings
    with tempfile.TemporaryDirectory() as tmp:
        slot_text = workload("slots", a.slots, Path(tmp) / "slots.ads")
        job_text = workload("jobs", a.jobs, Path(tmp) / "jobs.ads", "--clusters", "100")

    print(f"{'measurement':44s} {'condorx':>14s} {'classad2':>14s} {'unit':10s} {'ratio':>8s}")

    # 1. parsing. classad2.parseAds slows down on a long text (it is quadratic in the
    # text's length), so classad2 is also timed one ad at a time, and its faster figure
    # is the one compared.
    cx_slots, t_cx = timed(lambda: list(cx.parseAds(slot_text, cx.ParserType.Old)))
    c2_slots, t_whole = timed(lambda: list(classad2.parseAds(slot_text, classad2.ParserType.Old)))
    chunks = [c for c in slot_text.split("\n\n") if c.strip()]
    c2_each, t_each = timed(lambda: [classad2.parseOne(c, classad2.ParserType.Old) for c in chunks])
    assert len(cx_slots) == len(c2_slots) == len(c2_each) == a.slots
    print(
        f"  (classad2: parseAds {a.slots / t_whole:,.0f} ads/s, parseOne per ad "
        f"{a.slots / t_each:,.0f} ads/s)"
    )
    row(
        f"parse {a.slots:,} slot ads (old syntax)",
        "ads/s",
        a.slots,
        t_cx,
        a.slots,
        min(t_whole, t_each),
    )

    cx_jobs = list(cx.parseAds(job_text, cx.ParserType.Old))
    c2_jobs = list(classad2.parseAds(job_text, classad2.ParserType.Old))

    # 2. evaluating one Requirements expression against every slot
    cx_req = cx_jobs[0].lookup("Requirements")
    c2_req = c2_jobs[0].lookup("Requirements")
    cx_job, c2_job = cx_jobs[0], c2_jobs[0]
    got_cx, t_cx = timed(lambda: [cx_req.eval(scope=cx_job, target=s) for s in cx_slots])
    got_c2, t_c2 = timed(lambda: [c2_req.eval(scope=c2_job, target=s) for s in c2_slots])
    assert sum(v is True for v in got_cx) == sum(v is True for v in got_c2)
    row(f"eval Requirements x {a.slots:,} slots (loop)", "evals/s", a.slots, t_cx, a.slots, t_c2)
    got_bulk, t_bulk = timed(lambda: cx.eval_against(cx_req, cx_job, cx_slots))
    assert sum(v is True for v in got_bulk) == sum(v is True for v in got_c2)
    row(f"eval Requirements x {a.slots:,} slots (bulk)", "evals/s", a.slots, t_bulk, a.slots, t_c2)

    # 3. symmetric matching
    cx_m, c2_m = cx_slots[: a.match_slots], c2_slots[: a.match_slots]
    k = a.classad2_jobs
    pairs_c2 = k * len(c2_m)
    n_c2, t_c2 = timed(lambda: sum(j.symmetricMatch(s) for j in c2_jobs[:k] for s in c2_m))
    n_cx, t_cx = timed(lambda: sum(j.symmetricMatch(s) for j in cx_jobs[:k] for s in cx_m))
    assert n_cx == n_c2, (n_cx, n_c2)
    row(f"symmetric match {k} x {len(cx_m):,} (loop)", "pairs/s", pairs_c2, t_cx, pairs_c2, t_c2)
    pairs = len(cx_jobs) * len(cx_m)
    found, t_bulk = timed(lambda: cx.symmetric_matches(cx_jobs, cx_m))
    title = f"symmetric match {len(cx_jobs):,} x {len(cx_m):,} (bulk)"
    row(title, "pairs/s", pairs, t_bulk, pairs_c2, t_c2)
    print(f"  ({len(found):,} matching pairs of {pairs:,}; classad2 rate from {k} jobs)")


if __name__ == "__main__":
    main()
