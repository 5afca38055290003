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

from condorx.classad import ClassAd
from condorx.language.config import Config
from condorx.record import replace
from condorx.transport.cedar import qmgmt, sandbox
from condorx.transport.cedar.commands import Cmd
from condorx.transport.cedar.face import Call, CedarCommand
from condorx.transport.cedar.query_ad import constraint_of, limit_of, projection_of
from condorx.transport.protocol.schedd.act import Act, Reschedule
from condorx.transport.protocol.schedd.query import (
    AggregateJobs,
    History,
    QueryClaims,
    QueryJobs,
)

# JobAction numbers (HTCondor's enum_utils.h) and condorx's names for them.
ACTIONS = {1: "hold", 2: "release", 3: "remove", 4: "remove-x", 8: "suspend", 9: "continue"}
# Where each action's reason travels in the request ad.
REASONS = {"hold": "HoldReason", "release": "ReleaseReason", "remove": "RemoveReason"}
# A job's outcome as HTCondor's action_result_t numbers it.
RESULTS = {"ok": 1, "not-found": 2, "bad-status": 3, "already-done": 4, "denied": 5}
AR_LONG = 1


def _mine(query: ClassAd, call: Call, constraint: str | None) -> str | None:
    """The constraint narrowed to the asking user's jobs when `MyJobs` says so."""
    mine = query.get("MyJobs")
    if mine is None or mine is False:
        return constraint
    user = call.peer.user.replace('"', "")
    own = f'Owner == "{user}"'
    return own if constraint is None else f"({constraint}) && {own}"


async def _query_claims(call: Call) -> bool:
    """QUERY_STARTD_ADS to a schedd: the slots it holds claims on (`Schedd.get_claims`),
    answered `[1][ad] ... [0]` as HTCondor's schedd answers it."""
    query = (await call.payload()).classad()
    rows: list[bytes] = []

    async def take(chunk: Any) -> None:
        rows.extend(chunk)

    request = QueryClaims(
        constraint=constraint_of(query),
        cedar="encrypted" if call.conn.encrypted else "clear",
        projection=projection_of(query),
    )
    reply = await call.dispatch(request, take)
    out = call.writer()
    for row in rows if reply.get("ok") else []:
        out.integer(1).raw(row)
    await call.send(out.integer(0))
    return False


async def _query_jobs(call: Call) -> bool:
    query = (await call.payload()).classad()
    constraint = _mine(query, call, constraint_of(query))
    last = ClassAd({"Owner": 0, "ErrorCode": 0, "ServerTime": int(time.time())})
    if query.get("SummaryOnly") is True:
        reply = await _summary(call, constraint, last, query.get("MyJobs") is not None)
    elif query.get("ProjectionIsGroupBy") is True or query.get("QueryDefaultAutocluster") is True:
        reply = await _aggregates(call, query)
    else:

        async def each(rows: Any) -> None:
            for row in rows:
                await call.send(call.writer().raw(row))

        request = QueryJobs(
            constraint=constraint,
            limit=limit_of(query),
            cedar="encrypted" if call.conn.encrypted else "clear",
            projection=projection_of(query),
            clusters=query.get("IncludeClusterAd") is True or None,
            procs=False if query.get("NoProcAds") is True else None,
            jobsets=query.get("IncludeJobsetAds") is True or None,
        )
        reply = await call.dispatch(request, each)
    if not reply.get("ok"):
        error = reply.get("error") or {}
        last["ErrorCode"] = 1
        last["ErrorString"] = str(error.get("message", "query refused"))
    await call.send(call.writer().classad(last))
    return False


async def _aggregates(call: Call, query: ClassAd) -> dict[str, Any]:
    """condor_q -group-by (ProjectionIsGroupBy: grouped by the projection) and
    -autocluster (QueryDefaultAutocluster): one ad per group, whole, as HTCondor's
    schedd answers (its constraint chooses among the groups, not "my jobs")."""

    async def each(rows: Any) -> None:
        for row in rows:
            await call.send(call.writer().raw(row))

    most = query.get("MaxReturnedJobIds")
    request = AggregateJobs(
        by=None if query.get("QueryDefaultAutocluster") is True else projection_of(query) or [],
        constraint=constraint_of(query),
        limit=limit_of(query),
        max_ids=most if isinstance(most, int) and not isinstance(most, bool) else -1,
        cedar="encrypted" if call.conn.encrypted else "clear",
    )
    return await call.dispatch(request, each)


# JobStatus -> the count HTCondor's summary puts it in (TransferringOutput is Running).
_COUNTED = {
    1: "Idle",
    2: "Running",
    3: "Removed",
    4: "Completed",
    5: "Held",
    6: "Running",
    7: "Suspended",
}


async def _summary(call: Call, constraint: str | None, ad: ClassAd, mine: bool) -> dict[str, Any]:
    """The totals of a SummaryOnly query, as HTCondor's schedd publishes them: the
    chosen jobs' (no prefix), everyone's (Allusers) and, for "my jobs", the user's (My)."""
    rows: list[Any] = []

    async def take(chunk: Any) -> None:
        rows.extend(chunk)

    reply = await call.dispatch(QueryJobs(exprs=["JobStatus", "Owner", constraint or "true"]), take)
    if not reply.get("ok"):
        return reply
    chosen = [r for r in rows if r[2] is True]
    mine_rows = [r for r in rows if r[1] == call.peer.user]
    ad["MyType"] = "Summary"
    for prefix, group in (("", chosen), ("Allusers", rows), ("My", mine_rows if mine else None)):
        if group is None:
            continue
        counts = dict.fromkeys(("Idle", "Running", "Removed", "Completed", "Held", "Suspended"), 0)
        for status, *_ in group:
            name = _COUNTED.get(status) if isinstance(status, int) else None
            if name is not None:
                counts[name] += 1
        ad[f"{prefix}Jobs"] = len(group)
        for name, n in counts.items():
            ad[f"{prefix}{name}"] = n
    return reply


async def _act(call: Call) -> bool:
    """ACT_ON_JOBS, in HTCondor's two phases: the outcomes as they would be (nothing
    changed yet), then, once the client confirms with 1, the action itself."""
    ad = (await call.payload()).classad()
    number = ad.get("JobAction")
    action = ACTIONS.get(number) if isinstance(number, int) else None
    ids = ad.get("ActionIds")
    request = Act(
        action=action or "",
        ids=[i.strip() for i in ids.split(",") if i.strip()] if isinstance(ids, str) else None,
        constraint=constraint_of(ad, "ActionConstraint"),
        reason=_reason(ad, action),
        per_job=True,
        dry_run=True,
    )
    reply: dict[str, Any] = {"ok": False}
    if action is not None and (request.ids is not None or request.constraint is not None):
        reply = await call.dispatch(request)
    results = reply.get("results") or {} if reply.get("ok") else {}
    answer = _results_ad(ad, results, reply.get("queue_size"))
    await call.send(call.writer().classad(answer))
    if answer["ActionResult"] != 1:
        return False
    confirmed = (await call.payload()).integer()
    if confirmed != 1:
        return False
    done = await call.dispatch(replace(request, dry_run=False))
    await call.send(call.writer().integer(1 if done.get("ok") else 0))
    return False


def _reason(ad: ClassAd, action: str | None) -> str | None:
    attr = REASONS.get(action or "")
    value = ad.get(attr) if attr else None
    return value if isinstance(value, str) else None


def _results_ad(request: ClassAd, results: dict[str, Any], size: Any) -> ClassAd:
    """HTCondor's result ad: per job (`job_C_P`) or totals (`result_total_N`)."""
    codes = {job: RESULTS.get(str(outcome), 0) for job, outcome in results.items()}
    kind = request.get("ActionResultType")
    out = ClassAd({"ActionResultType": kind if isinstance(kind, int) else 2})
    if kind == AR_LONG:
        for job, code in codes.items():
            out[f"job_{job.replace('.', '_')}"] = code
    else:
        for code in range(7):
            out[f"result_total_{code}"] = sum(c == code for c in codes.values())
    out["JobAction"] = request.get("JobAction") or 0
    out["ActionResult"] = 1 if any(c == 1 for c in codes.values()) else 0
    out["TotalJobAds"] = size if isinstance(size, int) else 0
    return out


async def _history(call: Call) -> bool:
    """QUERY_SCHEDD_HISTORY: the ads and then `{Owner = 0, NumJobMatches = N}`, all in
    one message; or, when the request asks for `StreamResults`, first `{Owner = 1,
    StreamResults = true}`, then each ad in a message of its own."""
    query = (await call.payload()).classad()
    source = query.get("HistoryRecordSource")
    stream = query.get("StreamResults") is True
    limit = query.get("NumJobMatches")
    since = str(query.lookup("Since")) if "Since" in query else None
    request = History(
        constraint=constraint_of(query),
        limit=limit if isinstance(limit, int) and limit > 0 else None,
        since=since,
        cedar="encrypted" if call.conn.encrypted else "clear",
        projection=projection_of(query),
    )
    out = call.writer()
    count = 0
    if stream:
        await call.send(call.writer().classad(ClassAd({"Owner": 1, "StreamResults": True})))

    async def each(rows: Any) -> None:
        nonlocal count
        for row in rows:
            count += 1
            if stream:
                await call.send(call.writer().raw(row))
            else:
                out.raw(row)

    last = ClassAd({"Owner": 0})
    if isinstance(source, str) and source.upper() not in ("", "SCHEDD"):
        last["ErrorCode"] = 1
        last["ErrorString"] = f"history records of {source} are not kept by this schedd"
    else:
        reply = await call.dispatch(request, each)
        if not reply.get("ok"):
            last["ErrorCode"] = 1
            last["ErrorString"] = str((reply.get("error") or {}).get("message", "refused"))
    last["NumJobMatches"] = count
    last["MalformedAds"] = 0
    last["AdCount"] = count
    await call.send(out.classad(last))
    return False


async def _reschedule(call: Call) -> bool:
    """RESCHEDULE: no payload, no answer."""
    await call.dispatch(Reschedule())
    return False


def commands(cfg: Config | None = None) -> list[CedarCommand]:
    """The schedd's commands; `cfg` says whether it makes job factories
    (SCHEDD_ALLOW_LATE_MATERIALIZE, true unless set otherwise)."""
    late = cfg.get_bool("SCHEDD_ALLOW_LATE_MATERIALIZE", True) if cfg is not None else True
    serve_qmgmt = qmgmt.serving(late, cfg.get_bool("USE_JOBSETS", False) if cfg else False)
    return [
        CedarCommand(Cmd.RESCHEDULE, "WRITE", _reschedule),
        CedarCommand(Cmd.QUERY_SCHEDD_HISTORY, "READ", _history),
        CedarCommand(Cmd.ACT_ON_JOBS, "WRITE", _act, forced=True),
        CedarCommand(Cmd.SPOOL_JOB_FILES_WITH_PERMS, "WRITE", sandbox.spool, forced=True),
        CedarCommand(Cmd.TRANSFER_DATA_WITH_PERMS, "WRITE", sandbox.retrieve, forced=True),
        CedarCommand(Cmd.QMGMT_WRITE_CMD, "WRITE", serve_qmgmt, forced=True),
        CedarCommand(Cmd.QMGMT_READ_CMD, "READ", serve_qmgmt),
        CedarCommand(Cmd.QUERY_JOB_ADS, "READ", _query_jobs),
        CedarCommand(Cmd.QUERY_JOB_ADS_WITH_AUTH, "READ", _query_jobs, forced=True),
        CedarCommand(Cmd.QUERY_STARTD_ADS, "READ", _query_claims),
    ]
