"""The queue aggregated for condor_q -group-by and -autocluster, as HTCondor's schedd
aggregates it (autocluster.cpp, JobCluster::getClusterid and JobAggregationResults).

A job's signature is one `Name = value` line per attribute grouped by (its expression
as the old syntax writes it, empty when the job has none), then the same for the
attributes those expressions read that are not among them (references another ad
would resolve, `TARGET.x`, left out), in case-blind order. Jobs with one signature are
one group; groups are numbered as first met (from 1) and answered in the signatures'
order. A group's ad is its signature read back as an ad, with `Id` (`AutoClusterId` for
the default autoclusters), `JobCount` and `JobIds`: the first job, as many more as
`max_ids` allows, `...` for the rest, and the last.

The default autoclusters are condorx's stand-in for HTCondor's, whose attributes come
from the negotiator: SIGNIFICANT_ATTRIBUTES when configured, else HTCondor's minimal
set and the requests a slot's policy reads, over the idle jobs.
"""

from __future__ import annotations

from collections.abc import Iterable

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.schedd.store import Key, job_id
from condorx.language.attrs import JobStatus

# HTCondor's schedd always counts these significant (schedd.cpp's MinimalSigAttrs), and
# the requests a slot's default START and WithinResourceLimits read.
DEFAULT_ATTRS = (
    "JobUniverse",
    "RequestCpus",
    "RequestDisk",
    "RequestMemory",
    "Requirements",
    "Rank",
    "ConcurrencyLimits",
    "FlockTo",
)
_YIELD_EVERY = 10_000


def signature(ad: ClassAd, attrs: list[str]) -> str:
    """The job's signature over `attrs`, as HTCondor's getClusterid(expand_refs) writes it."""
    lines = []
    wanted = {a.lower() for a in attrs}
    refs: dict[str, str] = {}
    for name in attrs:
        expr = _lookup(ad, name)
        lines.append(f"{name} = {_old_text(expr)}\n")
        if expr is None:
            continue
        read = [*ad.internalRefs(expr), *(r for r in ad.externalRefs(expr) if "." not in r)]
        for ref in read:
            if ref.lower() not in wanted:
                refs.setdefault(ref.lower(), ref)
    for _, ref in sorted(refs.items()):
        lines.append(f"{ref} = {_old_text(_lookup(ad, ref))}\n")
    return "".join(lines)


def _lookup(ad: ClassAd, name: str) -> ExprTree | None:
    try:
        return ad.lookup(name)
    except KeyError:
        return None


def _old_text(expr: ExprTree | None) -> str:
    if expr is None:
        return ""
    return ClassAd({"x": expr}).printOld()[len("x = ") :].rstrip("\n")


def job_ids(keys: list[Key], max_ids: int) -> str:
    """HTCondor's JobIds: the first and last job, and between them at most
    `max_ids` - 2 more before `...`."""
    ids = job_id(keys[0])
    room = max_ids - 2
    for key in keys[1:-1]:
        room -= 1
        if room < 0:
            ids += " ..."
            break
        ids += " " + job_id(key)
    if len(keys) > 1:
        ids += " " + job_id(keys[-1])
    return ids


async def aggregate(
    jobs: Iterable[tuple[Key, ClassAd]], attrs: list[str], default: bool, max_ids: int | None
) -> list[ClassAd]:
    """One ad per group of `jobs` (each in queue order), the groups in their signatures'
    order."""
    groups: dict[str, list[Key]] = {}
    for n, (key, ad) in enumerate(jobs):
        if default and ad.get("JobStatus") != JobStatus.IDLE:
            continue
        groups.setdefault(signature(ad, attrs), []).append(key)
        if n % _YIELD_EVERY == _YIELD_EVERY - 1:
            await trio.lowlevel.checkpoint()
    numbers = {sig: i for i, sig in enumerate(groups, start=1)}
    ads = []
    for sig in sorted(groups):
        ad = ClassAd()
        for line in sig.splitlines():
            name, _, text = line.partition(" = ")
            if text:
                ad[name] = ExprTree(text)
        ad["AutoClusterId" if default else "Id"] = numbers[sig]
        ad["JobCount"] = len(groups[sig])
        if max_ids is not None and max_ids > 0:  # HTCondor names none unless asked
            ad["JobIds"] = job_ids(groups[sig], max_ids)
        ads.append(ad)
    return ads
