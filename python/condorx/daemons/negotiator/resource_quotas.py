"""Per-resource group quotas, condorx's extension to HTCondor's hierarchical group quotas:
a group may be held to an amount of any slot resource (GPUs beside its cores, as Kueue
and YuniKorn quota several resources), while GROUP_QUOTA_<g> and the rest keep exactly
the meaning they have in HTCondor (the group's share of the pool in slot weights).

    GROUP_RESOURCE_QUOTA_group_ml = GPUs:8, Memory:25%

Each `resource:amount` caps what the group and every group below it hold of that resource
at once: an amount, or a percentage of what the pool's slots have of it. A cap is strict
(no surplus flows to it; it lends nothing): a job of the group is matched only while its
Request<resource> fits under every cap on its way to the root. A resource no slot has
caps nothing. The knob family is condorx's own (HTCondor has no GROUP_RESOURCE_*), so a
configuration HTCondor reads means to condorx what it means there.

The caps are concurrency limits the negotiator adds (`condorx_quota_<res>.<group>`, a
group's dots written `__`): each waiting job names those of its groups with its request
as the amount, each claimed slot holds its own amount of the resource for its job's
groups, and the core counts them as it counts any limit. They never reach the schedd: the
matches it hears of carry the job's own limits alone.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from condorx.classad import ClassAd, ExprTree
from condorx.language.config import Config
from condorx.language.negotiation import Submitter

log = logging.getLogger("condorx.negotiator")

KNOB = "GROUP_RESOURCE_QUOTA_"
PREFIX = "condorx_quota_"
_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(%?)$")
_REASON = re.compile(r"concurrency limit condorx_quota_([a-z0-9_]+)\.([a-z0-9_]+) reached")


@dataclass(frozen=True)
class Cap:
    group: str  # as GROUP_NAMES spells it
    resource: str  # as the knob spells it (GPUs)
    amount: float
    percent: bool

    @property
    def limit(self) -> str:
        return f"{PREFIX}{self.resource.lower()}.{self.group.lower().replace('.', '__')}"


class ResourceQuotas:
    def __init__(self, cfg: Config, groups: Iterable[str]) -> None:
        self.caps: list[Cap] = []
        for group in groups:
            knob = KNOB + group
            text = cfg.get(knob)
            if text:
                self.caps.extend(_parse(cfg, knob, group, text))
        self._by_group: dict[str, list[Cap]] = {}
        for cap in self.caps:
            self._by_group.setdefault(cap.group.lower(), []).append(cap)

    def __bool__(self) -> bool:
        return bool(self.caps)

    def on_way(self, group: str) -> list[Cap]:
        """The caps on `group` and every group above it."""
        out: list[Cap] = []
        parts = group.lower().split(".")
        for n in range(len(parts), 0, -1):
            out.extend(self._by_group.get(".".join(parts[:n]), []))
        return out

    def maxima(self, slots: list[ClassAd]) -> dict[str, float]:
        """Each cap's limit, a percentage of what `slots` (the whole pool) have."""
        totals: dict[str, float] = {}
        out = {}
        for cap in self.caps:
            amount = cap.amount
            if cap.percent:
                if cap.resource not in totals:
                    totals[cap.resource] = sum(_amount(s, cap.resource) for s in slots)
                amount = totals[cap.resource] * cap.amount / 100.0
            out[cap.limit] = amount
        return out

    def held(self, slots: list[ClassAd], group_of: Callable[[str], str]) -> list[str]:
        """What the claimed slots hold of the caps: each its own amount of the resource,
        for its job's groups (`group_of` an accounting name's)."""
        out = []
        for slot in slots:
            name = slot.get("AccountingGroup") or slot.get("RemoteUser")
            if slot.get("State") != "Claimed" or not isinstance(name, str):
                continue
            for cap in self.on_way(group_of(name)):
                amount = _amount(slot, cap.resource)
                if amount > 0:
                    out.append(f"{cap.limit}:{amount:g}")
        return out

    def stamp(self, job: ClassAd, group: str) -> None:
        """The job names the caps of its groups, its Request<resource> each (a job that
        asks for none of a resource is not held by that resource's caps)."""
        words = []
        for cap in self.on_way(group):
            attr = f"Request{cap.resource}"
            amount = job.eval(attr) if attr in job else None
            if isinstance(amount, int | float) and not isinstance(amount, bool) and amount > 0:
                words.append(f"{cap.limit}:{amount:g}")
        if not words:
            return
        added = ", ".join(words)
        if "ConcurrencyLimits" not in job:
            job["ConcurrencyLimits"] = added
        elif isinstance(job.get("ConcurrencyLimits"), str):
            job["ConcurrencyLimits"] = f"{job.get('ConcurrencyLimits')}, {added}"
        else:  # an expression of the slot (concurrency_limits_expr): its value, then ours
            own = job.lookup("ConcurrencyLimits")
            job["ConcurrencyLimits"] = ExprTree(f'strcat({own}, ", {added}")')


def own_limits(limits: str | None) -> str | None:
    """A match's limits without the caps' (what the schedd and the startd hear)."""
    if not limits or PREFIX not in limits:
        return limits
    words = [w for w in re.split(r"[,\s]+", limits) if w and not w.startswith(PREFIX)]
    return ",".join(words) or None


def reason(text: str, caps: list[Cap]) -> str:
    """A cap's rejection in the words an administrator configured it in."""
    found = _REASON.search(text)
    if not found:
        return text
    for cap in caps:
        if cap.limit == f"{PREFIX}{found.group(1)}.{found.group(2)}":
            return f"group {cap.group}'s {cap.resource} quota reached"
    return text


def _parse(cfg: Config, knob: str, group: str, text: str) -> list[Cap]:
    out = []
    for word in text.replace(",", " ").split():
        m = _WORD.match(word)
        if m is None:
            where = cfg.where(knob)
            at = f" ({where[0]}, line {where[1]})" if where and where[1] is not None else ""
            log.error(
                "%s%s: %r is not resource:amount or resource:percent%%: ignored", knob, at, word
            )
            continue
        out.append(Cap(group, m.group(1), float(m.group(2)), m.group(3) == "%"))
    return out


def _amount(slot: ClassAd, resource: str) -> float:
    value = slot.get(resource)
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok and value > 0 else 0.0


def stamp_caps(
    quotas: ResourceQuotas, submitters: Iterable[Submitter], group_of: Callable[[str], str]
) -> None:
    """Every waiting job names the caps of its submitter's groups (each job once: a
    group of jobs stands in a submitter's list as many times as it counts)."""
    for submitter in submitters:
        group = group_of(submitter.name)
        if not quotas.on_way(group):
            continue
        seen: set[int] = set()
        for job in submitter.jobs:
            if id(job) not in seen:
                seen.add(id(job))
                quotas.stamp(job, group)
