"""A grid job as the remote schedd gets it (HTCondor's Condor-C): its attributes less the
local job's own bookkeeping, paths made plain names in its spool directory, `remote_`
attributes set there, and kept in that queue until its output is fetched."""

from __future__ import annotations

from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.schedd import spool
from condorx.daemons.schedd.remote import Resource
from condorx.language.attrs import NOT_COPIED, PROTECTED
from condorx.transport import wire

# The local job's own bookkeeping, never sent: the remote schedd keeps its own.
LOCAL_ONLY = frozenset(
    n.lower()
    for n in (
        "GridResource",
        "GridJobId",
        "Iwd",
        "UserLog",
        "RemoteHost",
        "LastRemoteHost",
        "NumJobStarts",
        "NumJobMatches",
        "JobStartDate",
        "JobCurrentStartDate",
        "LastMatchTime",
        "ReleaseReason",
        "SpooledInputFiles",
        "ShouldTransferFiles",
        "CompletionDate",
        "RemoteWallClockTime",
        "LastHoldReason",
        "LastHoldReasonCode",
        "LastHoldReasonSubCode",
        "LastRouteRemoved",
        "RoutedTime",
    )
)
# Attributes that name files: set by the spooling, never by `remote_` attributes (one
# user of this pool could otherwise name another's spooled proxy there).
FILE_ATTRS = frozenset(
    n.lower()
    for n in ("Cmd", "In", "Out", "Err", "TransferInput", "X509UserProxy", "Iwd", "UserLog")
)
# The remote copy stays in its queue after completing until its output is fetched (ten
# days at most, as HTCondor's gridmanager asks for).
LEAVE_IN_QUEUE = (
    "JobStatus == 4 && (CompletionDate =?= undefined || CompletionDate == 0 "
    "|| (time() - CompletionDate) < 864000)"
)


def remote_job(
    ad: ClassAd, submitter: str, resource: Resource
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The job as the remote schedd gets it, and its input files to spool there.

    Paths become plain names in the remote job's spool directory; `remote_<Name>`
    attributes set <Name> there (`+remote_JobUniverse = 5`: the universe it runs in,
    vanilla unless said otherwise)."""
    attrs: dict[str, Any] = {}
    overrides: dict[str, Any] = {}
    for name, value in wire.ad_to_wire(ad).items():
        low = name.lower()
        if low.startswith("remote_") and len(name) > 7:
            if name[7:].lower() not in FILE_ATTRS:  # the spool decides where files are
                overrides[name[7:]] = value
        elif low not in PROTECTED and low not in LOCAL_ONLY and low not in NOT_COPIED:
            attrs[name] = value
    paths, files = spool.gather(ad)
    attrs.update(paths)
    attrs["JobUniverse"] = 5
    attrs.update(overrides)
    for name in [n for n in attrs if n.lower() in PROTECTED]:
        del attrs[name]  # remote_Owner and the like are the remote schedd's to set
    attrs["SubmitterGlobalJobId"] = str(ad.get("GlobalJobId"))
    attrs["SubmitterSchedd"] = submitter
    attrs["LeaveJobInQueue"] = wire.Expr(LEAVE_IN_QUEUE)
    return attrs, files
