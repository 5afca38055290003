"""The queue-management RPCs that read the queue (GetAttribute*, GetJobAd,
GetJobByConstraint, the GetNextJob scans, GetAllJobsByConstraint), as `QueueReads`,
which `qmgmt.Qmgmt` is made of: each asks the schedd's query (`QueryJobs`) and answers
`[int rval]`, then the value or ad, or `[int errno]` (ENOENT) when there is none."""

from __future__ import annotations

import errno
from typing import Any

from condorx.classad import ClassAd
from condorx.transport.cedar.codec import Reader, put_ads
from condorx.transport.cedar.face import Call
from condorx.transport.cedar.qmgmt_rpc import Rpc
from condorx.transport.protocol.schedd.query import QueryJobs


class QueueReads:
    """The reading RPCs of a QMGMT connection (`call`), answered by `_answer`."""

    call: Call
    number: int  # the RPC being served
    _scan: list[ClassAd]  # what GetNextJob* hands out, one by one

    async def _answer(self, rval: int, code: int = 0, *more: Any) -> None:
        raise NotImplementedError

    async def _job_ads(self, constraint: str) -> list[ClassAd]:
        rows: list[bytes] = []

        async def take(chunk: Any) -> None:
            rows.extend(chunk)

        await self.call.dispatch(QueryJobs(constraint=constraint, cedar="clear"), take)
        return [Reader(row).classad() for row in rows]

    async def _one_job(self, cluster: int, proc: int) -> ClassAd | None:
        ads = await self._job_ads(f"ClusterId == {cluster} && ProcId == {proc}")
        return ads[0] if ads else None

    async def _get_attribute(self, msg: Reader) -> bool:
        cluster, proc, name = msg.integer(), msg.integer(), msg.text()
        # A cluster's own attributes: condorx keeps them with each proc; proc 0's say.
        ad = await self._one_job(cluster, max(proc, 0))
        value = _typed(ad, name, self.number) if ad is not None and name in ad else None
        if value is None:
            await self._answer(-1, errno.ENOENT)
        else:
            await self._answer(0, 0, value)
        return True

    async def _get_job_ad(self, msg: Reader) -> bool:
        cluster, proc = msg.integer(), msg.integer()
        ad = await self._one_job(cluster, proc) if proc >= 0 else None
        if ad is None:
            await self._answer(-1, errno.ENOENT)
        else:
            await self._answer(0, 0, ad)
        return True

    async def _job_by_constraint(self, msg: Reader) -> bool:
        """GetJobByConstraint: the first job the constraint chooses."""
        ads = await self._job_ads(msg.text() or "true")
        if ads:
            await self._answer(0, 0, ads[0])
        else:
            await self._answer(-1, errno.ENOENT)
        return True

    async def _next_job(self, msg: Reader) -> bool:
        """GetNextJob / GetNextJobByConstraint: a scan of the queue, begun again when
        `initScan` says so, one job per call; ENOENT once it is done."""
        first = msg.integer()
        constraint = msg.text() if self.number == Rpc.GetNextJobByConstraint else ""
        if first:
            self._scan = list(reversed(await self._job_ads(constraint or "true")))
        if self._scan:
            await self._answer(0, 0, self._scan.pop())
        else:
            await self._answer(-1, errno.ENOENT)
        return True

    async def _jobs_by_constraint(self, msg: Reader) -> bool:
        constraint, projection = msg.text(), msg.text()
        wanted = projection.replace(",", " ").split() or None
        out = self.call.writer()
        for ad in await self._job_ads(constraint or "true"):
            out.integer(0).raw(put_ads([ad], self.call.conn.encrypted, wanted)[0])
        out.integer(-1).integer(errno.ENOENT)
        await self.call.send(out)
        return True


def _typed(ad: ClassAd, name: str, rpc: int) -> Any:
    """The attribute as a GetAttribute* RPC answers it; None when it has no such type."""
    if rpc == Rpc.GetAttributeExpr:
        return str(ad.lookup(name))
    value = ad.eval(name)
    if rpc == Rpc.GetAttributeString:
        return value if isinstance(value, str) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if rpc == Rpc.GetAttributeFloat else int(value)
