"""Grid universe jobs (JobUniverse 9): what their GridResource names, and which kinds
this schedd can reach. Only `condor <schedd> <collector>` (a job handed to another
condorx pool's schedd) can run from here; the other kinds HTCondor knows (gt2, gt5, pbs,
lsf, ...) are accepted in a routing table or a submit file, and their jobs held at once
with a reason that says so, as HTCondor's gridmanager holds a job it cannot submit.
"""

from __future__ import annotations

from condorx.classad import ClassAd
from condorx.language.attrs import Universe

# `condor` resources: another condorx pool's schedd (see gridmanager).
REACHABLE = ("condor",)


def cannot_run(ad: ClassAd) -> str | None:
    """Why a grid job cannot run from here, or None (it can, or is no grid job)."""
    if ad.get("JobUniverse") != Universe.GRID:
        return None
    resource = ad.get("GridResource")
    if not isinstance(resource, str) or not resource.strip():
        return "a grid universe job needs a GridResource"
    kind = resource.split()[0].lower()
    if kind in REACHABLE:
        if len(resource.split()) != 3:
            return f"GridResource '{resource}': expected 'condor <schedd> <collector>'"
        return None
    return (
        f"GridResource type '{kind}' cannot be reached from this pool: condorx submits "
        f"grid jobs only to 'condor' resources (GridResource = \"{resource}\")"
    )
