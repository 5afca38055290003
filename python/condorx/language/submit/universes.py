"""A submission's universe, as condor_submit reads it: its name (a number too), what it
means, and the grid type of a grid universe job."""

from __future__ import annotations

from condorx.language.attrs import Universe
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.values import Values

UNIVERSES = {
    "vanilla": Universe.VANILLA,
    "scheduler": Universe.SCHEDULER,
    "local": Universe.LOCAL,
    "grid": Universe.GRID,
    "java": Universe.JAVA,
    "parallel": Universe.PARALLEL,
    "vm": Universe.VM,
    "container": Universe.VANILLA,
    "docker": Universe.VANILLA,
    "standard": Universe.STANDARD,
}
# Universes whose jobs the schedd runs itself or hands elsewhere: no lease, no file system.
SCHEDD_SIDE = (Universe.SCHEDULER, Universe.LOCAL, Universe.GRID)


def grid_type(v: Values) -> str:
    """The grid resource's first word, lower-cased ("" outside the grid universe)."""
    if universe(v) != Universe.GRID:
        return ""
    words = (v.get("grid_resource") or "").split()
    return words[0].lower() if words else ""


# Jobs whose executable names an instance or a VM, not a file (HTCondor's pseudo-executable).
PSEUDO_EXECUTABLE_GRIDS = ("ec2", "gce", "azure")


def universe_name(v: Values) -> str:
    """The universe as written, lower-cased ("vanilla" when none is)."""
    return (v.get("universe") or "vanilla").lower()


def universe(v: Values) -> Universe:
    name = universe_name(v)
    if name.isdigit() and int(name) in {u.value for u in Universe}:
        return Universe(int(name))
    if name not in UNIVERSES:
        raise SubmitError(f"{v.where('universe')}: I don't know about the '{name}' universe.")
    return UNIVERSES[name]
