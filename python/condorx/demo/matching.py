"""A small, deterministic pool of slot and job ads, matched with the Rust ClassAd engine.

This is the demo until the daemons exist: it shows what the negotiator will do with
ClassAds (symmetric Requirements, then Rank) on a pool shaped like a real one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from condorx.classad import ClassAd, Value, parseAds, symmetric_matches

ARCHES = ("X86_64", "X86_64", "X86_64", "aarch64")
MEMORY = (2048, 4096, 8192, 16384, 65536)
OWNERS = ("alice", "bob", "carol", "dave")
JOB_REQS = (
    'TARGET.Arch == "X86_64" && TARGET.OpSys == "LINUX" && TARGET.Memory >= MY.RequestMemory',
    'TARGET.Arch == "aarch64" && TARGET.Memory >= MY.RequestMemory',
    "TARGET.Cpus >= MY.RequestCpus && TARGET.Memory >= MY.RequestMemory",
    "TARGET.HasGPU =?= true",
)


def slot_text(i: int, rng: random.Random) -> str:
    """One slot ad in old syntax, as `condor_status -l` prints it."""
    gpu = "true" if i % 17 == 0 else "false"
    return "\n".join(
        [
            'MyType = "Machine"',
            f'Name = "slot{i % 8 + 1}@exec{i // 8:04d}.pool.example.org"',
            f'Arch = "{rng.choice(ARCHES)}"',
            'OpSys = "LINUX"',
            f"Memory = {rng.choice(MEMORY)}",
            f"Cpus = {rng.choice((1, 2, 4, 8))}",
            f"KFlops = {rng.randint(500_000, 4_000_000)}",
            f"LoadAvg = {rng.random():.3f}",
            f"KeyboardIdle = {rng.randint(0, 7200)}",
            f"HasGPU = {gpu}",
            'START = KeyboardIdle > 15 * 60 && LoadAvg < 0.6 && TARGET.Owner =!= "mallory"',
            "Requirements = START",
            'Rank = TARGET.Owner == "alice"',
        ]
    )


def job_text(i: int, rng: random.Random) -> str:
    """One job ad in old syntax, as `condor_q -l` prints it."""
    return "\n".join(
        [
            'MyType = "Job"',
            f"ClusterId = {100 + i // 10}",
            f"ProcId = {i % 10}",
            f'Owner = "{rng.choice(OWNERS)}"',
            f"RequestMemory = {rng.choice(MEMORY[:4])}",
            f"RequestCpus = {rng.choice((1, 1, 2, 4))}",
            f"Requirements = {rng.choice(JOB_REQS)}",
            "Rank = TARGET.KFlops",
        ]
    )


def make_pool(slots: int, jobs: int, seed: int = 7) -> tuple[list[ClassAd], list[ClassAd]]:
    rng = random.Random(seed)
    slot_ads = "\n\n".join(slot_text(i, rng) for i in range(slots))
    job_ads = "\n\n".join(job_text(i, rng) for i in range(jobs))
    return list(parseAds(slot_ads, "old")), list(parseAds(job_ads, "old"))


@dataclass
class JobResult:
    job_id: str
    owner: str
    requirements: str
    matching_slots: int
    best_slot: str | None
    best_rank: float | None


def rank_of(job: ClassAd, slot: ClassAd) -> float:
    """The job's Rank of a slot as a float (UNDEFINED or ERROR rank as 0)."""
    v = job.lookup("Rank").eval(scope=job, target=slot)
    if isinstance(v, Value) or not isinstance(v, (int, float)):
        return 0.0
    return float(v)


def match_pool(slots: list[ClassAd], jobs: list[ClassAd]) -> list[JobResult]:
    """For each job: how many slots match symmetrically, and the one its Rank likes best."""
    by_job: dict[int, list[int]] = {}
    for j, s in symmetric_matches(jobs, slots):
        by_job.setdefault(j, []).append(s)
    results = []
    for j, job in enumerate(jobs):
        found = by_job.get(j, [])
        best = max(found, key=lambda s: rank_of(job, slots[s]), default=None)
        results.append(
            JobResult(
                job_id=f"{job['ClusterId']}.{job['ProcId']}",
                owner=job["Owner"],
                requirements=str(job.lookup("Requirements")),
                matching_slots=len(found),
                best_slot=None if best is None else slots[best]["Name"],
                best_rank=None if best is None else rank_of(job, slots[best]),
            )
        )
    return results
