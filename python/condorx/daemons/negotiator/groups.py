"""Accounting groups as the negotiator's configuration gives them: GROUP_NAMES with each
group's quota and knobs, read as HTCondor's GroupEntry::hgq_construct_tree reads them, into
the core's `Groups` (which keeps round robin's memory from one cycle to the next).

A knob out of its range is clamped to it, as HTCondor's param_double clamps, with an error
logged that names the knob and where it is set: one bad quota costs its group, never the
negotiator.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

from condorx.language.config import Config
from condorx.language.negotiation import Groups

log = logging.getLogger("condorx.negotiator")

# HTCondor's upper bound for a static quota (param_double(..., 0, INT_MAX)).
_INT_MAX = float(2**31 - 1)
_HUGE = 1.0e100


ROOT = "<none>"


@dataclass
class PoolGroups:
    """The groups as the core shares the pool among them, and what the accountant and
    condor_userprio show of each (by the group's name, in lower case: HTCondor's group
    names are case-insensitive)."""

    core: Groups
    #: GROUP_QUOTA_<g>, or GROUP_QUOTA_DYNAMIC_<g> (a fraction), as configured.
    config_quota: dict[str, float] = field(default_factory=dict)
    #: GROUP_PRIO_FACTOR_<g>, where set: the factor its new accounting records start at.
    prio_factor: dict[str, float] = field(default_factory=dict)
    #: "regroup", "byquota" or "no" (condor_userprio's SurplusPolicy).
    surplus: dict[str, str] = field(default_factory=dict)

    def has_groups(self) -> bool:
        return self.core.has_groups()


def read_groups(cfg: Config) -> PoolGroups:
    """The pool's accounting groups (none when GROUP_NAMES is empty) and the knobs that
    share the pool among them."""
    rows = [_group_row(cfg, name) for name in cfg.get_list("GROUP_NAMES")]
    default_surplus = cfg.get_bool("GROUP_ACCEPT_SURPLUS", False)
    default_regroup = cfg.get_bool("GROUP_AUTOREGROUP", False)
    rounds_knob = _defined(cfg, "GROUP_QUOTA_MAX_ALLOCATION_ROUNDS", "HFS_MAX_ALLOCATION_ROUNDS")
    rate_knob = _defined(cfg, "GROUP_QUOTA_ROUND_ROBIN_RATE", "HFS_ROUND_ROBIN_RATE")
    groups = Groups(
        rows,
        accept_surplus=default_surplus,
        autoregroup=default_regroup,
        oversubscribe=cfg.get_bool("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", True),
        max_rounds=int(_ranged(cfg, rounds_knob, 3.0, 1.0, _INT_MAX)),
        round_robin_rate=_ranged(cfg, rate_knob, _HUGE, 1.0, _HUGE),
        strict=cfg.get_bool("NEGOTIATOR_STRICT_ENFORCE_QUOTA", True),
        weighted=cfg.get_bool("NEGOTIATOR_USE_SLOT_WEIGHTS", True),
        consider_preemption=cfg.get_bool("NEGOTIATOR_CONSIDER_PREEMPTION", True),
        sort_expr=cfg.get("GROUP_SORT_EXPR"),
    )
    for warning in groups.warnings:
        log.warning("%s", warning)  # each says "group quotas: ..." itself, as HTCondor's
    out = PoolGroups(groups)
    defined = {n.lower() for n in groups.names}
    regroup_any = default_regroup
    for name, static, dynamic, surplus, regroup in rows:
        key = name.lower()
        if key not in defined or key == ROOT:
            continue
        quota = static if static is not None else dynamic
        out.config_quota[key] = quota if quota is not None else 0.0
        regroups = default_regroup if regroup is None else regroup
        regroup_any = regroup_any or regroups
        accepts = default_surplus if surplus is None else surplus
        out.surplus[key] = "regroup" if regroups else "byquota" if accepts else "no"
    # The root takes surplus always, and regroups when any group does (as HTCondor's).
    out.surplus[ROOT] = "regroup" if regroup_any else "byquota"
    for name in groups.names:
        if cfg.get(f"GROUP_PRIO_FACTOR_{name}") is not None:
            factor = _ranged(cfg, f"GROUP_PRIO_FACTOR_{name}", 0.0, 0.0, _HUGE)
            if factor >= 1.0:  # HTCondor's MIN_PRIORITY_FACTOR: less is not a factor
                out.prio_factor[name.lower()] = factor
    return out


def _group_row(
    cfg: Config, name: str
) -> tuple[str, float | None, float | None, bool | None, bool | None]:
    """(name, static quota, dynamic quota, accept surplus, autoregroup); None where unset."""
    static = dynamic = None
    if cfg.get(f"GROUP_QUOTA_{name}") is not None:
        static = _ranged(cfg, f"GROUP_QUOTA_{name}", 0.0, 0.0, _INT_MAX)
    elif cfg.get(f"GROUP_QUOTA_DYNAMIC_{name}") is not None:
        dynamic = _ranged(cfg, f"GROUP_QUOTA_DYNAMIC_{name}", 0.0, 0.0, 1.0)
    return (
        name,
        static,
        dynamic,
        _flag(cfg, name, "ACCEPT_SURPLUS"),
        _flag(cfg, name, "AUTOREGROUP"),
    )


def _flag(cfg: Config, group: str, knob: str) -> bool | None:
    """GROUP_<knob>_<group>, None when unset (the group takes GROUP_<knob>)."""
    name = f"GROUP_{knob}_{group}"
    return cfg.get_bool(name, False) if cfg.get(name) is not None else None


def _defined(cfg: Config, name: str, legacy: str) -> str:
    """`name`, or its older spelling when only that is set (HTCondor reads the old HFS_
    names for backward compatibility)."""
    return name if cfg.get(name) is not None or cfg.get(legacy) is None else legacy


def _ranged(cfg: Config, name: str, default: float, low: float, high: float) -> float:
    """A number in [low, high], as HTCondor's param_double reads one: not a number gives
    the default, out of range the nearer bound, each with an error naming the knob."""
    text = cfg.get(name)
    if text is None:
        return default
    value = cfg.get_float(name, math.nan)
    if math.isnan(value):
        _complain(cfg, name, text, "is not a number", low, high, default)
        return default
    if value < low:
        _complain(cfg, name, text, "is too low", low, high, default)
        return low
    if value > high:
        _complain(cfg, name, text, "is too high", low, high, default)
        return high
    return value


def _complain(
    cfg: Config, name: str, text: str, what: str, low: float, high: float, default: float
) -> None:
    where = cfg.where(name)
    at = f" ({where[0]}, line {where[1]})" if where and where[1] is not None else ""
    log.error(
        "%s%s %s (%s): set it to a number from %g to %g (default %g)",
        name,
        at,
        what,
        text,
        low,
        high,
        default,
    )
