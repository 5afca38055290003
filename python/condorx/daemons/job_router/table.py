"""The routing table (Job Router manual): JOB_ROUTER_DEFAULTS, then the entries of
JOB_ROUTER_ENTRIES, JOB_ROUTER_ENTRIES_FILE and the output of JOB_ROUTER_ENTRIES_CMD, each
a sequence of new-syntax ClassAds (`[ ... ] [ ... ]`, `/* */` comments allowed).

An entry overrides the defaults attribute by attribute. Its name is `name`, else its
GridResource. A later entry of the same name replaces an earlier one unless it says
`OverrideRoutingEntry = false`. An entry that does not parse, or whose attributes are
of the wrong kind, is reported with its route name and the attribute, and left out: the
rest of the table still loads.
"""

from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condorx.classad import ClassAd, parseAds
from condorx.language.attrs import Universe
from condorx.language.config import Config

DEFAULTS = {
    "MaxJobs": 100,
    "MaxIdleJobs": 50,
    "FailureRateThreshold": 0.03,
    "TargetUniverse": 9,
    "OverrideRoutingEntry": True,
}
# Attribute operations on the routed copy, in the order they are applied.
EDITS = ("copy_", "delete_", "set_", "eval_set_")


class EntryError(ValueError):
    pass


@dataclass(frozen=True)
class Route:
    name: str
    ad: ClassAd  # the defaults, overridden by the entry
    grid_resource: str
    max_jobs: int
    max_idle: int
    failure_threshold: float
    target_universe: int
    edits: tuple[tuple[str, str, Any], ...]  # (operation, attribute, expression or value)

    def accepts(self, job: ClassAd) -> bool:
        """The route's requirements, with the route as MY and the job as TARGET."""
        if "requirements" not in self.ad:
            return True
        return self.ad.eval("requirements", job) is True

    def evaluates(self, name: str, job: ClassAd) -> Any:
        """A (new ClassAds) expression of the route about a job: JobFailureTest,
        UseSharedX509UserProxy, JobShouldBeSandboxed."""
        return self.ad.eval(name, job) if name in self.ad else None


@dataclass
class Table:
    routes: list[Route] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def by_name(self) -> dict[str, Route]:
        return {r.name: r for r in self.routes}


def load(cfg: Config) -> Table:
    """The routing table as configured now (running JOB_ROUTER_ENTRIES_CMD)."""
    table = Table()
    defaults = _defaults(cfg, table)
    sources = [("JOB_ROUTER_ENTRIES", cfg.get("JOB_ROUTER_ENTRIES") or "")]
    path = (cfg.get("JOB_ROUTER_ENTRIES_FILE") or "").strip()
    if path:
        try:
            sources.append((path, Path(path).read_text()))
        except OSError as e:
            table.errors.append(f"JOB_ROUTER_ENTRIES_FILE {path}: {e.strerror}")
    cmd = (cfg.get("JOB_ROUTER_ENTRIES_CMD") or "").strip()
    if cmd:
        sources.append(("JOB_ROUTER_ENTRIES_CMD", _run(cmd, table)))
    for where, text in sources:
        for n, chunk in enumerate(split_ads(text), 1):
            _add(table, defaults, chunk, f"{where}, entry {n}")
    return table


def _defaults(cfg: Config, table: Table) -> ClassAd:
    text = (cfg.get("JOB_ROUTER_DEFAULTS") or "").strip()
    if not text:
        return ClassAd()
    try:
        ads = list(parseAds(text, "new"))
    except ValueError as e:
        table.errors.append(f"JOB_ROUTER_DEFAULTS: {e}")
        return ClassAd()
    return ads[0] if ads else ClassAd()


def _run(cmd: str, table: Table) -> str:
    try:
        done = subprocess.run(shlex.split(cmd), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired, ValueError) as e:
        table.errors.append(f"JOB_ROUTER_ENTRIES_CMD {cmd!r}: {e}")
        return ""
    if done.returncode != 0:
        table.errors.append(f"JOB_ROUTER_ENTRIES_CMD {cmd!r} exited {done.returncode}")
    return done.stdout


def _add(table: Table, defaults: ClassAd, text: str, where: str) -> None:
    try:
        ads = list(parseAds(text, "new"))
        entry = ads[0]
    except (ValueError, IndexError) as e:
        table.errors.append(f"{where}: not a ClassAd: {e}")
        return
    merged = defaults.copy()
    merged.update(entry)
    name = _name(merged)
    try:
        route = _route(merged, name)
    except EntryError as e:
        table.errors.append(f"route {name!r} ({where}): {e}")
        return
    for i, old in enumerate(table.routes):
        if old.name == name:
            override = (
                merged.eval("OverrideRoutingEntry") if "OverrideRoutingEntry" in merged else True
            )
            if override is not False:
                table.routes[i] = route
            return
    table.routes.append(route)


def _name(ad: ClassAd) -> str:
    for attr in ("name", "GridResource"):
        v = ad.eval(attr) if attr in ad else None
        if isinstance(v, str) and v:
            return v
    return "(unnamed)"


def _route(ad: ClassAd, name: str) -> Route:
    grid = ad.eval("GridResource") if "GridResource" in ad else None
    universe = _int(ad, "TargetUniverse")
    if not isinstance(grid, str) or not grid.strip():
        if universe == Universe.GRID:
            raise EntryError("GridResource must be a string naming the grid site")
        grid = ""
    if "requirements" in ad:
        _expr(ad, "requirements")
    for attr in ("JobFailureTest", "UseSharedX509UserProxy", "JobShouldBeSandboxed"):
        if attr in ad:
            _expr(ad, attr)
    return Route(
        name=name,
        ad=ad,
        grid_resource=grid.strip(),
        max_jobs=_int(ad, "MaxJobs"),
        max_idle=_int(ad, "MaxIdleJobs"),
        failure_threshold=_number(ad, "FailureRateThreshold"),
        target_universe=universe,
        edits=_edits(ad),
    )


def _int(ad: ClassAd, attr: str) -> int:
    v = ad.eval(attr) if attr in ad else DEFAULTS[attr]
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise EntryError(f"{attr} must be a non-negative integer, not {_show(ad, attr)}")
    return v


def _number(ad: ClassAd, attr: str) -> float:
    v = ad.eval(attr) if attr in ad else DEFAULTS[attr]
    if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
        raise EntryError(f"{attr} must be a non-negative number, not {_show(ad, attr)}")
    return float(v)


def _expr(ad: ClassAd, attr: str) -> None:
    if ad.lookup(attr) is None:
        raise EntryError(f"{attr} must be an expression")


def _show(ad: ClassAd, attr: str) -> str:
    expr = ad.lookup(attr)
    return str(expr) if expr is not None else "undefined"


def _edits(ad: ClassAd) -> tuple[tuple[str, str, Any], ...]:
    found: list[tuple[str, str, Any]] = []
    for op in EDITS:
        for key in ad.keys():
            if not key.lower().startswith(op) or len(key) == len(op):
                continue
            # eval_set_X would also read as set_... of nothing: match the longest prefix.
            if op == "set_" and key.lower().startswith("eval_set_"):
                continue
            target = key[len(op) :]
            if op == "copy_":
                dest = ad.eval(key)
                if not isinstance(dest, str) or not dest:
                    raise EntryError(f"{key} must name the attribute to copy {target} to")
                found.append((op, target, dest))
            else:
                found.append((op, target, ad.lookup(key)))
    return tuple(found)


def split_ads(text: str) -> list[str]:
    """The top-level `[ ... ]` ads of a text, each on its own (strings and comments kept
    whole), so that one entry that does not parse leaves the others."""
    out: list[str] = []
    depth, start, i, n = 0, -1, 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _skip_string(text, i)
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c == "[":
            if depth == 0:
                start = i
            depth += 1
        elif c == "]" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(text[start : i + 1])
        i += 1
    if depth > 0:
        out.append(text[start:])  # unterminated: reported as the entry that does not parse
    return out


def _skip_string(text: str, i: int) -> int:
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == '"':
            return j + 1
        j += 1
    return j
