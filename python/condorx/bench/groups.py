"""A synthetic pool shared by accounting group: the bench pool's users placed in a
three-level tree of groups under dynamic quotas, as large pools configure them.

    >>> tree = GroupTree(top=4, middle=4, leaves=5)   # 4 + 16 + 80 = 100 groups
    >>> grouped = tree.assign(pool)                    # submitters renamed group.user@pool
    >>> cycle = negotiate(pool.slots, grouped, groups=tree.groups(), pool_size=..., usage={})

Each user goes to a leaf group (user u to leaf u mod the leaves); each level splits its
parent's quota evenly; every group accepts surplus, so the whole pool can be used."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from condorx.bench.pool import Pool
from condorx.language.negotiation import ConcurrencyLimits, Groups, Submitter

DOMAIN = "pool.example.org"


@dataclass(frozen=True)
class GroupTree:
    top: int = 4
    middle: int = 4
    leaves: int = 5

    def names(self) -> list[str]:
        """Every group, parents before their children."""
        tops = [f"group_{t}" for t in range(self.top)]
        middles = [f"{t}.sub{m}" for t in tops for m in range(self.middle)]
        leaves = [f"{m}.leaf{v}" for m in middles for v in range(self.leaves)]
        return tops + middles + leaves

    def leaf_names(self) -> list[str]:
        return [n for n in self.names() if n.count(".") == 2]

    def groups(self) -> Groups:
        share = {0: 1.0 / self.top, 1: 1.0 / self.middle, 2: 1.0 / self.leaves}
        rows: list[tuple[str, float | None, float | None, bool | None, bool | None]] = [
            (n, None, share[n.count(".")], None, None) for n in self.names()
        ]
        return Groups(rows, accept_surplus=True)

    def assign(self, pool: Pool) -> list[Submitter]:
        """The pool's submitters, each renamed into its leaf group (same jobs, same
        priority): what a schedd sends once its users submit with accounting_group."""
        leaves = self.leaf_names()
        return [
            Submitter(f"{leaves[u % len(leaves)]}.{s.name}@{DOMAIN}", s.priority, s.jobs)
            for u, s in enumerate(pool.submitters)
        ]


def put_limits(pool: Pool, every: int = 10, names: int = 20) -> tuple[ConcurrencyLimits, int]:
    """Put the jobs of every `every`th cluster under one of `names` concurrency limits
    (`lic<k>`, by cluster), each limit allowing half the pool's share those jobs would
    want, so that the limits bind; the limits, and how many jobs they cover."""
    size = pool_size(pool)
    most = max(1.0, size / every / names / 2)
    covered = 0
    for s in pool.submitters:
        for job in s.jobs:
            cluster = int(job.get("ClusterId") or 0)
            if cluster % every == 0:
                job["ConcurrencyLimits"] = f"lic{cluster // every % names}"
                covered += 1
    maxima = {f"lic{k}": most for k in range(names)}
    return ConcurrencyLimits(maxima, {}, 2308032.0), covered


def pool_size(pool: Pool) -> float:
    """The pool's size in weighted slots (each slot's Cpus), as the negotiator counts it."""
    return float(sum(int(s.get("Cpus") or 1) for s in pool.slots))


def accountant_update(submitters: int, tree: GroupTree, cycles: int = 5) -> float:
    """Median seconds the negotiator's accountant takes to charge `submitters` users
    (each holding slots) and their groups for one cycle, as the negotiator does it: new
    records primed, the group totals made, every record's priority updated, and the
    records written to disk (fsynced)."""
    from condorx.daemons.negotiator.accounting import Accounting
    from condorx.daemons.negotiator.group_accounts import GroupAccounts
    from condorx.daemons.negotiator.groups import PoolGroups

    leaves = tree.leaf_names()
    accounts = GroupAccounts(PoolGroups(tree.groups()), DOMAIN)
    held = {f"{leaves[u % len(leaves)]}.user{u:05d}": float(u % 7 + 1) for u in range(submitters)}
    times = []
    now = 1_700_000_000.0
    with tempfile.TemporaryDirectory(prefix="acctbench") as d:
        accounting = Accounting(Path(d) / "Accountantnew.log", 86400.0, 1000.0)
        accounts.prime_groups(accounting.accountant)
        for c in range(cycles):
            start = time.perf_counter()
            for name in held:
                accounts.prime(accounting.accountant, name)
            accounting.charge(now + 60.0 * c, accounts.charged(held))
            times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]
