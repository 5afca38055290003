"""The one definition of a job this pool's slots run: Idle, not tied to a routed copy (the
copy runs instead: the router's), not a grid job (another pool runs it: the
gridmanager's), and not a parallel job (its machine_count slots at once need HTCondor's
dedicated scheduler, which condorx does not have: such a job waits rather than run on one
slot). The negotiator reads it as a constraint; a claim that looks for its next job reads
it as a test of the ad. Both are made from the same constants here."""

from __future__ import annotations

from condorx.classad import ClassAd
from condorx.language.attrs import JobStatus, Universe

MANAGED_ELSEWHERE = "External"
NOT_HERE = (Universe.GRID, Universe.PARALLEL)

CONSTRAINT = " && ".join(
    [
        f"JobStatus == {int(JobStatus.IDLE)}",
        f'Managed =!= "{MANAGED_ELSEWHERE}"',
        *(f"JobUniverse =!= {int(u)}" for u in NOT_HERE),
    ]
)


def runs_here(ad: ClassAd | None) -> bool:
    """`CONSTRAINT`, for one ad."""
    return (
        ad is not None
        and ad.get("JobStatus") == JobStatus.IDLE
        and ad.get("Managed") != MANAGED_ELSEWHERE
        and ad.get("JobUniverse") not in NOT_HERE
    )
