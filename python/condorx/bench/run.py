"""Timed negotiation cycles over a synthetic pool: cycle time, matches/s, peak memory.

    >>> result = run(Workload(slots=1000, jobs=10_000, users=10, clusters=100), cycles=3)
    >>> result.cycle_seconds, result.matches, result.peak_rss_mib

Every cycle negotiates the same idle queue against the same unclaimed pool (matches are
not applied between cycles: with no job ever finishing, a second cycle would find the
pool full and time nothing), so K cycles are K measurements of one cycle, and the figures
are taken from the median one.

Memory is the process's resident set (getrusage's high-water mark, /proc for the current
figure): the ads and the cycle's work live in Rust, where tracemalloc cannot see them.
"""

from __future__ import annotations

import resource
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from condorx.bench.pool import Pool, make_pool
from condorx.language import negotiation

Advance = Callable[[int], None]
# A progress reporter: given a description and a total, yields the callable that
# advances it. The CLI passes a rich progress bar; tests and benches a silent one.
Reporter = Callable[[str, int], Any]


@contextmanager
def silent(_description: str, _total: int) -> Iterator[Advance]:
    yield lambda _n: None


@dataclass(frozen=True)
class Workload:
    slots: int = 10_000
    jobs: int = 100_000
    users: int = 50
    clusters: int = 1_000
    seed: int = 1


@dataclass
class Result:
    workload: Workload
    cycles: int
    # NEGOTIATOR_CONSIDER_PREEMPTION for the cycles (the synthetic pool's slots are
    # unclaimed, so it changes what is scanned, not what is matched).
    preemption: bool
    generate_seconds: float
    cycle_seconds: float  # the median cycle, wall time of negotiate()
    cycle_seconds_min: float
    cycle_seconds_max: float
    matches: int
    rejections: int
    clusters: int
    pairs_evaluated: int
    rss_after_pool_mib: float
    peak_rss_mib: float
    all_cycles_alike: bool  # every cycle counted the same matches, rejections and pairs
    cycle_times: list[float] = field(default_factory=list)
    # Wall seconds per phase of the median cycle (autoclusters, matching, ...).
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.cycle_seconds if self.cycle_seconds else 0.0

    @property
    def pairs_per_second(self) -> float:
        return self.pairs_evaluated / self.cycle_seconds if self.cycle_seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["matches_per_second"] = self.matches_per_second
        d["pairs_per_second"] = self.pairs_per_second
        return d


def rss_mib() -> float:
    """The resident set now (Linux /proc; the high-water mark where /proc is missing)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        return peak_rss_mib()


def peak_rss_mib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cycle(pool: Pool, preemption: bool) -> negotiation.Cycle:
    """One negotiation cycle over the pool."""
    return negotiation.negotiate(pool.slots, pool.submitters, consider_preemption=preemption)


def build(workload: Workload, report: Reporter = silent) -> tuple[Pool, float]:
    """The workload's pool, and the seconds it took to make."""
    w = workload
    start = time.perf_counter()
    with report("generating ads", w.slots + w.jobs) as advance:
        pool = make_pool(w.slots, w.jobs, w.users, w.clusters, w.seed, progress=advance)
    return pool, time.perf_counter() - start


def run(
    workload: Workload,
    cycles: int = 1,
    preemption: bool = False,
    report: Reporter = silent,
    pool: Pool | None = None,
) -> Result:
    """Build the pool (unless given one) and time `cycles` negotiation cycles over it."""
    if cycles < 1:
        raise ValueError("need at least one cycle")
    generate_seconds = 0.0
    if pool is None:
        pool, generate_seconds = build(workload, report)
    rss_after_pool = rss_mib()
    times: list[float] = []
    phases: list[dict[str, float]] = []
    signatures: set[tuple[int, ...]] = set()
    last: negotiation.Cycle | None = None
    with report("negotiation cycles", cycles) as advance:
        for _ in range(cycles):
            last = None  # let the previous cycle's matches go before the next is made
            last = cycle(pool, preemption)
            times.append(last.seconds)
            phases.append(last.phases)
            signatures.add(
                (len(last.matches), len(last.rejections), last.clusters, last.pairs_evaluated)
            )
            advance(1)
    assert last is not None
    return Result(
        workload=workload,
        cycles=cycles,
        preemption=preemption,
        generate_seconds=generate_seconds,
        cycle_seconds=statistics.median(times),
        cycle_seconds_min=min(times),
        cycle_seconds_max=max(times),
        matches=len(last.matches),
        rejections=len(last.rejections),
        clusters=last.clusters,
        pairs_evaluated=last.pairs_evaluated,
        rss_after_pool_mib=rss_after_pool,
        peak_rss_mib=peak_rss_mib(),
        all_cycles_alike=len(signatures) == 1,
        cycle_times=times,
        phases=phases[times.index(statistics.median_low(times))],
    )
