"""HTCondor's permission levels as a token's scopes limit them: which levels a level
implies (DCpermissionHierarchy), and which a token scoped with `condor:/LEVEL` may use.
Both of condorx's wires enforce the same limits."""

from __future__ import annotations

from collections.abc import Iterable

# What each permission level implies (HTCondor's DCpermissionHierarchy).
IMPLIES = {
    "WRITE": "READ",
    "NEGOTIATOR": "READ",
    "ADMINISTRATOR": "WRITE",
    "CONFIG": "READ",
    "DAEMON": "WRITE",
    "ADVERTISE_STARTD": "READ",
    "ADVERTISE_SCHEDD": "READ",
    "ADVERTISE_MASTER": "READ",
}


def levels(named: Iterable[str]) -> frozenset[str]:
    """The levels `named` allow, with those they imply."""
    out: set[str] = set()
    for level in (n.upper() for n in named):
        while level and level not in out:
            out.add(level)
            level = IMPLIES.get(level, "")
    return frozenset(out)


def limits_of(scopes: Iterable[str]) -> frozenset[str] | None:
    """The levels a token's `condor:/LEVEL` scopes allow, with those they imply; None
    when it names none (no limit)."""
    named = [s[len("condor:/") :].upper() for s in scopes if s.startswith("condor:/")]
    if not named:
        return None
    return levels(named)
