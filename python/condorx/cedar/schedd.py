"""The schedd's CEDAR commands.

QUERY_JOB_ADS (and QUERY_JOB_ADS_WITH_AUTH, which authenticates so that "my jobs" means
something): the request ad names a constraint (`Requirements`), the attributes wanted
(`Projection`, newline-separated), `LimitResults` and `MyJobs`; each job ad goes back as
a message of its own, and a last ad with `Owner = 0` ends the answer (with
`ServerTime` when `SendServerTime` asked for it, with `ErrorCode` and `ErrorString`
when the query was refused).
"""

from __future__ import annotations

import time
from typing import Any

from condorx.cedar.collector import constraint_of, limit_of
from condorx.cedar.commands import Cmd
from condorx.cedar.face import Call, CedarCommand
from condorx.classad import ClassAd
from condorx.protocol.schedd import QueryJobs


def _projection(query: ClassAd) -> list[str] | None:
    value = query.get("Projection")
    if not isinstance(value, str) or not value.strip():
        return None
    return value.replace(",", " ").split()


def _mine(query: ClassAd, call: Call, constraint: str | None) -> str | None:
    """The constraint narrowed to the asking user's jobs when `MyJobs` says so."""
    mine = query.get("MyJobs")
    if mine is None or mine is False:
        return constraint
    user = call.peer.user.replace('"', "")
    own = f'Owner == "{user}"'
    return own if constraint is None else f"({constraint}) && {own}"


async def _query_jobs(call: Call) -> bool:
    query = (await call.payload()).classad()

    async def each(rows: Any) -> None:
        for row in rows:
            await call.send(call.writer().raw(row))

    request = QueryJobs(
        constraint=_mine(query, call, constraint_of(query)),
        limit=limit_of(query),
        cedar="encrypted" if call.conn.encrypted else "clear",
        projection=_projection(query),
    )
    reply = await call.dispatch(request, each)
    last = ClassAd({"Owner": 0})
    if query.get("SendServerTime") is True:
        last["ServerTime"] = int(time.time())
    if not reply.get("ok"):
        error = reply.get("error") or {}
        last["ErrorCode"] = 1
        last["ErrorString"] = str(error.get("message", "query refused"))
    await call.send(call.writer().classad(last))
    return False


def commands() -> list[CedarCommand]:
    return [
        CedarCommand(Cmd.QUERY_JOB_ADS, "READ", _query_jobs, QueryJobs),
        CedarCommand(Cmd.QUERY_JOB_ADS_WITH_AUTH, "READ", _query_jobs, QueryJobs, forced=True),
    ]
