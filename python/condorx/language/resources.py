"""A slot ad's `MachineResources`: the names of the resources its slots are carved by,
the four every machine has and its custom ones (MACHINE_RESOURCE_<name>: GPUs, ...).
The startd writes it; the negotiator reads which custom resources to carve, and the
startd which ones a job's environment is told of."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

STANDARD = ("Cpus", "Memory", "Disk", "Swap")
_STANDARD_LOWER = frozenset(n.lower() for n in STANDARD)


class Ad(Protocol):
    """A slot ad: a ClassAd, or its map on the wire."""

    def get(self, name: str, /) -> Any: ...


def listing(custom: Iterable[str]) -> str:
    """The `MachineResources` of a machine with these custom resources."""
    return " ".join([*STANDARD, *custom])


def listed(ad: Ad) -> list[str]:
    """Every resource a slot ad's `MachineResources` names (none when it has none)."""
    text = ad.get("MachineResources")
    return text.replace(",", " ").split() if isinstance(text, str) else []


def custom(ad: Ad) -> list[str]:
    """The custom resources among them."""
    return [n for n in listed(ad) if n.lower() not in _STANDARD_LOWER]
