"""What a pool would run under another configuration: a real pool's machines (its
`condor_status -l`) and queue (its `condor_q -l`) negotiated, cycle after cycle, by the
negotiator's own core under each configuration, until a cycle matches nothing more; the
jobs running per accounting group, before and after. No peer does this: administrators
change quotas blind.

Each configuration is read as the negotiator reads it: GROUP_NAMES and the quota knobs
(`read_groups`), condorx's per-resource group quotas (`resource_quotas`),
NEGOTIATOR_USE_SLOT_WEIGHTS, the ranks, concurrency limits, UID_DOMAIN. The pool starts
empty (every slot free, every job of the dump idle), as `condorx sim up --machine-ads`
starts it; its slots are the simulator's (the startd's own ads for the dumped machines,
partitionable slots whole). A match takes its slot for good (the jobs run forever), a
partitionable slot gives what it carved, and the groups' usage and the concurrency
limits' counts carry from one cycle to the next, as a live pool's claimed slots carry
them. Priorities are all alike (a pool's history of usage is not in its dumps), so
within a group the users share alike; preemption is not considered.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from condorx.classad import ClassAd
from condorx.daemons.core.accounts import accounting_name
from condorx.daemons.negotiator.groups import ROOT, read_groups
from condorx.daemons.negotiator.limits import read_limits
from condorx.daemons.negotiator.pool_usage import slot_weight
from condorx.daemons.negotiator.resource_quotas import ResourceQuotas, stamp_caps
from condorx.language.config import Config
from condorx.language.negotiation import Submitter, negotiate
from condorx.sim import pool_dump, queue_dump
from condorx.sim.ad_dump import DumpError
from condorx.transport import wire

_CARVED = ("Cpus", "Memory", "Disk")


@dataclass
class Outcome:
    """What one configuration runs: jobs running and left idle, by accounting group (the
    group GROUP_NAMES assigns each job's accounting name; `<none>` without one), each
    group's quota as the last cycle set it, and how many cycles it took."""

    running: Counter[str] = field(default_factory=Counter)
    idle: Counter[str] = field(default_factory=Counter)
    quotas: dict[str, float] = field(default_factory=dict)
    cycles: int = 0
    slots: int = 0


def machines(cfg: Config, path: Path) -> list[ClassAd]:
    """The dumped pool's slots as its simulated startds advertise them, free."""
    ads = [ad for table in pool_dump.tables(cfg, path) for ad in table.ads()]
    return wire.ads_from_wire(ads, "slot ad")


def jobs(path: Path) -> list[ClassAd]:
    """The dump's jobs that would wait for a slot (held and completed ones left out),
    each with its dumped id, else one of its own."""
    queue = queue_dump.load(path)
    out = []
    for n, cluster in enumerate(queue.clusters, 1):
        for p, proc in enumerate(cluster.procs):
            ad = {**cluster.cluster, **proc}
            if ad.get("JobStatus") != 1:
                continue
            ad.setdefault("ClusterId", n)
            ad.setdefault("ProcId", p)
            out.append(ad)
    if not out:
        left = ", ".join(f"{n} {why}" for why, n in sorted(queue.skipped.items())) or "none"
        raise DumpError(f"{path} has no idle job to run (left out: {left})")
    return wire.ads_from_wire(out, "job ad")


def replay(
    cfg: Config, slots: list[ClassAd], waiting: list[ClassAd], max_cycles: int = 50
) -> Outcome:
    """Negotiate `waiting` onto `slots` under `cfg` until a cycle matches nothing."""
    groups = read_groups(cfg)
    grouped = groups.core if groups.has_groups() else None
    domain = cfg.get("UID_DOMAIN") or cfg.get("FULL_HOSTNAME") or "localhost"
    weighted = cfg.get_bool("NEGOTIATOR_USE_SLOT_WEIGHTS", True)
    names = groups.core.names[1:] if grouped is not None else []
    quotas = ResourceQuotas(cfg, names)  # condorx's per-resource group quotas
    limits = read_limits(cfg, quotas.maxima(slots))
    held: list[str] = []  # the limits the matches so far hold
    free = [s.copy() for s in slots]
    size = sum(slot_weight(s) if weighted else 1.0 for s in free)
    by_name: dict[str, list[ClassAd]] = {}
    for job in waiting:
        by_name.setdefault(accounting_name(job), []).append(job)
    usage: dict[str, float] = {}
    if quotas and grouped is not None:
        everyone = [Submitter(f"{n}@{domain}", 0.5, left) for n, left in by_name.items()]
        stamp_caps(quotas, everyone, grouped.assigned)
    running: Counter[str] = Counter()
    outcome = Outcome(slots=len(slots))
    for outcome.cycles in range(1, max_cycles + 1):
        limits.hold(held)
        names = sorted(n for n, left in by_name.items() if left)
        submitters = [Submitter(f"{n}@{domain}", 0.5, by_name[n]) for n in names]
        cycle = negotiate(
            free,
            submitters,
            consider_preemption=False,
            pre_job_rank=cfg.get("NEGOTIATOR_PRE_JOB_RANK"),
            post_job_rank=cfg.get("NEGOTIATOR_POST_JOB_RANK"),
            groups=grouped,
            pool_size=size,
            usage={f"{n}@{domain}": used for n, used in usage.items()},
            limits=limits,
            slot_weights=weighted,
        )
        if not cycle.matches:
            break
        taken: set[int] = set()
        started: set[int] = set()
        for m in cycle.matches:
            name = m.submitter.name.rsplit("@", 1)[0]
            started.add(id(m.job))
            running[name] += 1
            if m.limits:
                held.append(m.limits)
            if m.dynamic_slot is not None:
                _carve(m.slot, m.dynamic_slot)
                cost = slot_weight(m.dynamic_slot) if weighted else 1.0
            else:
                taken.add(id(m.slot))
                cost = slot_weight(m.slot) if weighted else 1.0
            usage[name] = usage.get(name, 0.0) + cost
        free = [s for s in free if id(s) not in taken]
        by_name = {n: [j for j in left if id(j) not in started] for n, left in by_name.items()}
    assign = grouped.assigned if grouped is not None else (lambda name: ROOT)
    for name, count in running.items():
        outcome.running[assign(f"{name}@{domain}")] += count
    for name, left in by_name.items():
        if left:
            outcome.idle[assign(f"{name}@{domain}")] += len(left)
    if grouped is not None:
        outcome.quotas = grouped.quotas(size)
    return outcome


def _carve(pslot: ClassAd, dynamic: ClassAd) -> None:
    """A partitionable slot gives what it carved: what it has left is what it offers."""
    for name in _CARVED:
        left, took = pslot.get(name), dynamic.get(name)
        if isinstance(left, int | float) and isinstance(took, int | float):
            pslot[name] = left - took
    weight, took = pslot.get("SlotWeight"), slot_weight(dynamic)
    if isinstance(weight, int | float) and not isinstance(weight, bool):
        pslot["SlotWeight"] = weight - took
