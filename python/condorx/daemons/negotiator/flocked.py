"""Schedds of other pools that flock here: their submitters' ads in our collector (each
tagged with the name their FLOCK_TO gives this pool, SubmitterTag), and the token each
schedd made for this negotiator (its SubmitterPrivate ads' Capability), with which the
negotiator reads their jobs and hands them their matches, as HTCondor's negotiator uses
the negotiator session a flocking schedd sets up. Their submitters are then negotiated
like any other."""

from __future__ import annotations

from collections import Counter
from typing import Any

from condorx.client.collector import CollectorClient
from condorx.transport.connection import Credentials

_FLOCKED = "SubmitterTag =!= undefined"


async def flocked_schedds(collector: CollectorClient, creds: Credentials) -> list[dict[str, Any]]:
    """Each flocking schedd with idle jobs for us, as a Scheduler ad would show it (Name,
    MyAddress, TotalIdleJobs), with the credentials it gave us ("creds"); a schedd
    whose token is missing is passed over (nothing could prove us to it)."""
    public = _rows(
        await collector.query_rows(
            "submitter", ["ScheddName", "ScheddIpAddr", "IdleJobs"], _FLOCKED
        ),
        (str, str, int),
    )
    if not public:
        return []
    private = _rows(
        await collector.query_rows("submitterprivate", ["ScheddName", "Capability"]), (str, str)
    )
    tokens = dict(private)
    idle: Counter[tuple[str, str]] = Counter()
    for name, address, count in public:
        idle[name, address] += max(0, count)
    out = []
    for (name, address), count in sorted(idle.items()):
        token = tokens.get(name)
        if token is None:
            continue
        shown = Credentials(token=token, policy=creds.policy, issuer=creds.issuer)
        out.append({"Name": name, "MyAddress": address, "TotalIdleJobs": count, "creds": shown})
    return out


def _rows(rows: Any, types: tuple[type, ...]) -> list[Any]:
    """The collector's rows of these types (a row of any other shape, a stranger's, is
    passed over)."""
    if not isinstance(rows, list):
        return []
    return [
        r
        for r in rows
        if isinstance(r, list)
        and len(r) == len(types)
        and all(isinstance(v, t) and not isinstance(v, bool) for v, t in zip(r, types, strict=True))
    ]
