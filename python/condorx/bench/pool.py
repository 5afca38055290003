"""A deterministic synthetic pool for the negotiation benchmark: slot ads, job ads, users.

    >>> pool = make_pool(slots=1000, jobs=10_000, users=10, clusters=100, seed=1)
    >>> len(pool.slots), sum(len(s.jobs) for s in pool.submitters)
    (1000, 10000)

Slots mix Arch, OpSys, Memory, Cpus, Disk, KFlops and Mips as a real pool does, with a
handful of START and RANK policies (some read the job: Owner, RequestMemory, AcctGroup,
JobPrio). Jobs come from `users` submitters with spread-out effective priorities, in
exactly `clusters` autoclusters: the attributes a match reads (Requirements, Rank,
RequestMemory/Cpus/Disk, Owner, AcctGroup, JobPrio) vary only from one cluster to the
next, never within one; ClusterId, ProcId, QDate and Args vary per job and are read by no
policy. Each autocluster is one `condor_submit` (one ClusterId, ProcIds 0..n-1) of one user.

Ads are written as old-syntax text and parsed in Rust in chunks: formatting a short
per-job tail onto a per-cluster template is the cheapest way to build a million ads from
Python, and chunking keeps the text's memory small next to the ads'.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from condorx.classad import ClassAd, ParserType, parseAds
from condorx.language.negotiation import Submitter

ARCHES = ("X86_64", "X86_64", "X86_64", "aarch64")
OPSYSES = ("LINUX", "LINUX", "LINUX", "WINDOWS")
MEMORIES = (2048, 4096, 8192, 16384, 32768, 65536, 131072)
CPUS = (1, 1, 2, 4, 8, 16)
GROUPS = ("physics", "chem", "bio", "cs")
# Machine owners' START policies, weighted towards the permissive ones a dedicated
# cluster uses; the desktop-style one rejects most jobs, as desktops do.
START_POLICIES = (
    ("true", 4),
    ("KeyboardIdle > 15 * 60 && LoadAvg < 0.3", 1),
    ('TARGET.Owner =!= "user000"', 2),
    ("(TARGET.RequestMemory =?= undefined) || (TARGET.RequestMemory <= MY.Memory)", 3),
    ('stringListMember(TARGET.AcctGroup, "physics,chem,bio") || TARGET.JobPrio > 5', 1),
)
SLOT_RANKS = (
    "0",
    'TARGET.Owner == "user001"',
    "TARGET.RequestMemory",
    '(TARGET.AcctGroup == "physics") * 10',
)
JOB_RANKS = ("TARGET.KFlops", "TARGET.Memory", "0", "TARGET.Mips / 1000.0")
REQUEST_MEMORY = (512, 1024, 2048, 4096, 8192, 16384)
REQUEST_DISK_GB = (1, 2, 5, 10, 20, 50)
CHUNK = 50_000  # ads parsed per call: big enough to amortise, small enough for the text


@dataclass
class Pool:
    """Slot ads and the submitters whose idle jobs want them."""

    slots: list[ClassAd]
    submitters: list[Submitter]
    clusters: int
    # (ClusterId, submitter index, index of its first job in that submitter's list): one
    # representative per autocluster, for baselines that match cluster by cluster.
    representatives: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def jobs(self) -> int:
        return sum(len(s.jobs) for s in self.submitters)


Progress = Callable[[int], None]


def _noop(_: int) -> None:
    pass


def slot_text(i: int, rng: random.Random, starts: list[str], weights: list[int]) -> str:
    """Slot `i` in old syntax, as `condor_status -l` prints it."""
    host = f"exec{i // 8:05d}.pool.example.org"
    start = rng.choices(starts, weights)[0]
    return (
        'MyType = "Machine"\nTargetType = "Job"\n'
        f'Name = "slot{i % 8 + 1}@{host}"\nMachine = "{host}"\nSlotID = {i % 8 + 1}\n'
        f'Arch = "{rng.choice(ARCHES)}"\nOpSys = "{rng.choice(OPSYSES)}"\n'
        f"Memory = {rng.choice(MEMORIES)}\nCpus = {rng.choice(CPUS)}\n"
        f"Disk = {rng.randint(10, 2000) * 1024 * 1024}\n"
        f"KFlops = {rng.randint(500_000, 4_000_000)}\nMips = {rng.randint(5000, 40000)}\n"
        f"LoadAvg = {rng.random():.3f}\nKeyboardIdle = {rng.randint(0, 7200)}\n"
        'State = "Unclaimed"\nActivity = "Idle"\n'
        'FileSystemDomain = "pool.example.org"\nUidDomain = "pool.example.org"\n'
        f"HasFileTransfer = true\nStart = {start}\nRequirements = START\n"
        f"Rank = {rng.choice(SLOT_RANKS)}\nCurrentRank = 0.0\n"
    )


def cluster_template(c: int, owner: str, rng: random.Random) -> str:
    """The significant attributes of autocluster `c`, shared by all its jobs.

    RequestDisk carries `c` in its low bits (a few KiB on top of whole GiB) so that no two
    clusters are written alike, whatever the random draws, and every job's Requirements
    read it: exactly `clusters` clusters.
    """
    mem = rng.choice(REQUEST_MEMORY)
    arch = rng.choice(ARCHES)
    disk_kib = rng.choice(REQUEST_DISK_GB) * 1024 * 1024 + c % (1024 * 1024)
    # Every form ends with the clauses condor_submit appends to any job's Requirements
    # (Disk and Memory against the request), as real queues' jobs all carry them.
    req = (
        rng.choices(
            (
                f'(TARGET.Arch == "{arch}") && (TARGET.OpSys == "LINUX")',
                '(TARGET.OpSys == "LINUX") && TARGET.HasFileTransfer',
                f'(TARGET.Arch == "{arch}") && (TARGET.Cpus >= MY.RequestCpus) '
                "&& (TARGET.KFlops > 1000000)",
                'regexp("^exec0[0-4]", TARGET.Machine)',
            ),
            (4, 3, 3, 1),
        )[0]
        + " && (TARGET.Disk >= MY.RequestDisk) && (TARGET.Memory >= MY.RequestMemory)"
    )
    return (
        f'MyType = "Job"\nTargetType = "Machine"\nOwner = "{owner}"\n'
        f'User = "{owner}@pool.example.org"\nAcctGroup = "{rng.choice(GROUPS)}"\n'
        f"JobUniverse = 5\nJobStatus = 1\nJobPrio = {rng.randint(0, 10)}\n"
        f"RequestMemory = {mem}\nRequestCpus = {rng.choice((1, 1, 1, 2, 4))}\n"
        f"RequestDisk = {disk_kib}\nRequirements = {req}\n"
        f"Rank = {rng.choice(JOB_RANKS)}\n"
        f'Cmd = "/home/{owner}/analysis/run.sh"\n'
    )


def cluster_sizes(jobs: int, clusters: int, rng: random.Random) -> list[int]:
    """Jobs per cluster: at least one each, the rest skewed as real queues are (a few
    big submissions, many small ones), summing to exactly `jobs`."""
    sizes = [1] * clusters
    rest = jobs - clusters
    if rest:
        weights = [1.0 / (1 + k) ** 0.8 for k in range(clusters)]
        rng.shuffle(weights)
        total = sum(weights)
        shares = [int(rest * w / total) for w in weights]
        for k in range(rest - sum(shares)):  # what rounding down left over
            shares[k % clusters] += 1
        sizes = [a + b for a, b in zip(sizes, shares, strict=True)]
    return sizes


def priorities(users: int, rng: random.Random) -> list[float]:
    """Effective priorities spread over two orders of magnitude around the default
    factor (1000), as a pool with light and heavy users has."""
    return [round(1000.0 * math.exp(rng.gauss(0.0, 1.0)), 1) for _ in range(users)]


def _parse(text: str) -> list[ClassAd]:
    return list(parseAds(text, ParserType.Old))


def slot_texts(n: int, seed: int) -> Iterator[str]:
    """The pool's `n` slot ads as old-syntax texts, one per ad (the same for a seed)."""
    rng = random.Random(seed)
    starts = [p for p, _ in START_POLICIES]
    weights = [w for _, w in START_POLICIES]
    for i in range(n):
        yield slot_text(i, rng, starts, weights)


def make_slots(n: int, seed: int, progress: Progress = _noop) -> list[ClassAd]:
    ads: list[ClassAd] = []
    texts = slot_texts(n, seed)
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        ads += _parse("\n".join(itertools.islice(texts, hi - lo)))
        progress(hi - lo)
    return ads


def make_pool(
    slots: int,
    jobs: int,
    users: int,
    clusters: int,
    seed: int = 1,
    progress: Progress = _noop,
) -> Pool:
    """`slots` slot ads and `jobs` idle jobs of `users` submitters in `clusters` clusters.

    Cluster c belongs to user c mod `users`, so with fewer clusters than users only the
    first `clusters` users have jobs. `progress` is called with the number of ads made.
    """
    if not 1 <= clusters <= jobs:
        raise ValueError(f"need 1 <= clusters <= jobs, got {clusters} clusters, {jobs} jobs")
    if users < 1 or slots < 0:
        raise ValueError("need at least one user and no negative slot count")
    rng = random.Random(seed)
    slot_ads = make_slots(slots, seed, progress)
    names = [f"user{u:03d}" for u in range(users)]
    submitters = [Submitter(n, p, []) for n, p in zip(names, priorities(users, rng), strict=True)]
    representatives: list[tuple[int, int, int]] = []
    sizes = cluster_sizes(jobs, clusters, rng)
    # Parse in chunks of whole clusters' worth of jobs, each chunk's ads going to their
    # owners in order (a cluster's jobs are contiguous, as one condor_submit makes them).
    pending: list[str] = []
    owners: list[int] = []
    made = [0] * users  # jobs per user so far, flushed or not
    qdate = 1_700_000_000

    def flush() -> None:
        ads = _parse("\n".join(pending))
        for ad, u in zip(ads, owners, strict=True):
            submitters[u].jobs.append(ad)
        progress(len(ads))
        pending.clear()
        owners.clear()

    for c, size in enumerate(sizes):
        u = c % users
        representatives.append((c + 1, u, made[u]))
        made[u] += size
        head = cluster_template(c, names[u], random.Random(seed * 1_000_003 + c))
        for p in range(size):
            pending.append(
                f'{head}ClusterId = {c + 1}\nProcId = {p}\nQDate = {qdate}\nArgs = "--part {p}"\n'
            )
            owners.append(u)
            qdate += 1
        if len(pending) >= CHUNK:
            flush()
    if pending:
        flush()
    return Pool(slot_ads, submitters, clusters, representatives)
