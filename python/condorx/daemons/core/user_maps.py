"""A daemon's ClassAd user maps, for the `userMap()` function of its expressions, read at
start as HTCondor's reconfig_user_maps reads them: <SUBSYS>_CLASSAD_USER_MAP_NAMES lists
the maps; each is the map file CLASSAD_USER_MAPFILE_<name>, or else the text of
CLASSAD_USER_MAPDATA_<name>.

Either is a map file of lines `* principal canonical` (HTCondor's MapFile with hash keys
assumed: a principal is a literal name unless written `/regex/`, and the canonical
text is the map's answer, a comma-separated list for a group map). The lines of method
`*` are the map; a line that cannot be read is skipped, with its file and line logged.
"""

from __future__ import annotations

import logging
import re

from condorx import _core
from condorx.language.config import Config
from condorx.transport.cedar import mapfile

log = logging.getLogger("condorx.usermap")

Rule = tuple[str, bool, str]  # principal, whether it is a regular expression, canonical


def load(cfg: Config, subsystem: str) -> list[str]:
    """Read the maps the configuration names and hand them to the core; their names."""
    maps: list[tuple[str, list[Rule]]] = []
    for name in cfg.get_list(f"{subsystem}_CLASSAD_USER_MAP_NAMES"):
        rules = _rules(cfg, name)
        if rules is not None:
            log.info("ClassAd user map %r: %d rules", name, len(rules))
            maps.append((name, rules))
    _install(maps)
    return [name for name, _ in maps]


def _rules(cfg: Config, name: str) -> list[Rule] | None:
    path = cfg.get(f"CLASSAD_USER_MAPFILE_{name}")
    if path:
        parsed = mapfile.load(path, assume_hash=True)
    else:
        data = cfg.get(f"CLASSAD_USER_MAPDATA_{name}")
        if data is None:
            log.error("ClassAd user map %r: no CLASSAD_USER_MAPFILE_%s or _MAPDATA_", name, name)
            return None
        parsed = mapfile.parse(data, f"CLASSAD_USER_MAPDATA_{name}", assume_hash=True)
    rules: list[Rule] = []
    for entry in parsed.entries.get("*", []):
        if entry.literal is not None:
            rules.append((entry.literal, False, entry.canonical))
        elif entry.pattern is not None:
            text = entry.pattern.pattern
            if entry.pattern.flags & re.IGNORECASE:
                text = "(?i)" + text
            rules.append((text, True, entry.canonical))
    return rules


def _install(maps: list[tuple[str, list[Rule]]]) -> None:
    """Hand the maps to the core; a pattern its regex engine refuses (Python's took it)
    is dropped with an error, and the rest installed."""
    while True:
        try:
            _core.set_user_maps(maps)
            return
        except ValueError as e:
            where = _bad_rule(str(e))
            if where is None:
                log.error("ClassAd user maps not installed: %s", e)
                return
            log.error("ClassAd user map %r: %s; that rule is dropped", where[0], e)
            maps = [(n, [r for i, r in enumerate(rs) if (n, i) != where]) for n, rs in maps]


def _bad_rule(message: str) -> tuple[str, int] | None:
    """(map, rule index) from the core's "map NAME, rule I: bad regex: ..."."""
    head = message.split(": bad regex", 1)[0]
    if not head.startswith("map ") or ", rule " not in head:
        return None
    name, _, index = head[4:].rpartition(", rule ")
    return (name, int(index)) if index.isdigit() else None
