"""Jobs' files over HTCondor's wire: SPOOL_JOB_FILES_WITH_PERMS (`Schedd.spool()`: the
input files of jobs submitted with spool=True) and TRANSFER_DATA_WITH_PERMS
(`Schedd.retrieve()`: the output of spooled jobs), each job's files moved by the
file-transfer protocol (`cedar.transfer`).

The schedd decides through condorx's own requests: StageIn (may these jobs take their
files; then, the files themselves), Retrieve (a job's output, by its names in the spool)
and StageOut (a retrieval begins, and is done). A refusal closes the connection, as
HTCondor's schedd does; the client reports the transfer failed.
"""

from __future__ import annotations

from typing import Any

from condorx.transport.cedar import transfer
from condorx.transport.cedar.codec import CedarError
from condorx.transport.cedar.face import Call
from condorx.transport.protocol.schedd.files import Retrieve, StageIn, StageOut
from condorx.transport.protocol.schedd.query import QueryJobs

MAX_JOBS = 100_000  # ids in one SPOOL command
OK = 1


async def spool(call: Call) -> bool:
    """SPOOL_JOB_FILES_WITH_PERMS: `[version][count]`, `[cluster][proc]...`, then each
    job's files; `[1]` once all are kept."""
    head = await call.payload()
    head.text()  # the client's version
    count = head.integer()
    if count <= 0 or count > MAX_JOBS:
        raise CedarError(f"a spool of {count} jobs")
    ids = await call.payload()
    jobs = [f"{ids.integer()}.{ids.integer()}" for _ in range(count)]
    check = await call.dispatch(StageIn(jobs=jobs))
    if not check.get("ok"):
        return False  # closed without a word: the client fails the transfer
    for job in jobs:
        got = await transfer.download(call)
        if not got.ok:
            await transfer.acknowledge(call, False, got.reason)
            return False
        reply = await call.dispatch(StageIn(jobs=[job], files=[_files(got)]))
        ok = bool(reply.get("ok"))
        reason = "" if ok else str((reply.get("error") or {}).get("message", "not kept"))
        await transfer.acknowledge(call, ok, reason)
        if not ok:
            return False
    await call.send(call.writer().integer(OK))
    return False


def _files(got: transfer.Received) -> dict[str, Any]:
    return dict(got.files)


async def retrieve(call: Call) -> bool:
    """TRANSFER_DATA_WITH_PERMS: `[version][constraint]`; `[count]`, then each job's ad
    and its output files; the client's `[1]` at the end."""
    head = await call.payload()
    head.text()  # the client's version
    constraint = head.text()
    chosen = await call.dispatch(StageOut(constraint=constraint or "true"))
    if not chosen.get("ok"):
        return False
    jobs = [str(j) for j in chosen.get("jobs") or []]
    await call.send(call.writer().integer(len(jobs)))
    for job in jobs:
        ad = await _job_ad(call, job)
        output = await call.dispatch(Retrieve(job=job, names="spool"))
        if ad is None or not output.get("ok"):
            return False
        await call.send(call.writer().raw(ad))
        files = {str(k): bytes(v) for k, v in (output.get("files") or {}).items()}
        if not await transfer.upload(call, files, final=True):
            return False
    done = (await call.payload()).integer()
    if done == OK and jobs:
        await call.dispatch(StageOut(jobs=jobs, done=True))
    return False


async def _job_ad(call: Call, job: str) -> bytes | None:
    """The job's whole ad, encoded for this connection."""
    cluster, proc = job.split(".")
    rows: list[bytes] = []

    async def take(chunk: Any) -> None:
        rows.extend(chunk)

    mode = "encrypted" if call.conn.encrypted else "clear"
    query = QueryJobs(constraint=f"ClusterId == {cluster} && ProcId == {proc}", cedar=mode)
    reply = await call.dispatch(query, take)
    return rows[0] if reply.get("ok") and rows else None
