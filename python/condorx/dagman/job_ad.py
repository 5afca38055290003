"""The DAGMan job as condor_dagman sees it in the schedd: its own ad (read at start, its
DAG_* counts kept current), and the removal of its node jobs (condor_rm of the DAG, an
abort, ABORT-DAG-ON, the services at the end)."""

from __future__ import annotations

import time

from condorx.classad import ClassAd
from condorx.client.schedd import ScheddClient
from condorx.dagman import outcome
from condorx.dagman.debug_log import DebugLog
from condorx.dagman.engine import Engine
from condorx.transport import wire


class DagmanJob:
    def __init__(self, client: ScheddClient, job: tuple[int, int], out: DebugLog) -> None:
        self.client = client
        self.job = job  # (0, 0) when condor_dagman was run by hand: no ad to keep
        self.out = out
        self._sent: dict[str, object] = {}
        self._sent_at = 0.0

    async def update(self, eng: Engine, force: bool = False) -> None:
        """The DAG_* attributes, sent when they changed (at most each second, and at the
        end, `force`)."""
        if not self.job[0] or (not force and time.monotonic() - self._sent_at < 1.0):
            return
        c = outcome.counts(eng)
        attrs: dict[str, object] = {
            "DAG_NodesTotal": len(eng.states),
            "DAG_NodesDone": c["DONE"],
            "DAG_NodesPrerun": c["PRERUN"],
            "DAG_NodesQueued": c["SUBMITTED"],
            "DAG_NodesPostrun": c["POSTRUN"],
            "DAG_NodesReady": c["READY"],
            "DAG_NodesFailed": c["ERROR"],
            "DAG_NodesUnready": c["NOT_READY"],
            "DAG_NodesFutile": c["FUTILE"],
            "DAG_Status": int(outcome.final_status(eng) if force else eng.status),
            "DAG_InRecovery": int(eng.recovering),
            "DAG_JobsSubmitted": eng.jobs_submitted,
            "DAG_JobsIdle": eng.idle,
            "DAG_JobsHeld": eng.held,
            "DAG_JobsRunning": max(eng.jobs_submitted - eng.jobs_completed - eng.idle, 0),
            "DAG_JobsCompleted": eng.jobs_completed,
        }
        if attrs == self._sent:
            return
        self._sent_at = time.monotonic()
        self._sent = attrs
        changed = {k: str(v) for k, v in attrs.items()}
        changed["DAG_AdUpdateTime"] = str(int(time.time()))
        await self.edit(changed)

    async def edit(self, attrs: dict[str, str]) -> None:
        try:
            await self.client.edit(attrs, ids=[f"{self.job[0]}.{self.job[1]}"])
        except (wire.WireError, wire.RemoteError, OSError) as e:
            self.out(f"WARNING: cannot update the DAGMan job's ad: {e}")

    async def own_ad(self) -> ClassAd | None:
        try:
            async for chunk in self.client.query_ads(
                f"ClusterId == {self.job[0]} && ProcId == {self.job[1]}"
            ):
                for ad in chunk:
                    return ad
        except (wire.WireError, wire.RemoteError, OSError) as e:
            self.out(f"WARNING: cannot read the DAGMan job's ad: {e}")
        return None

    async def remove_cluster(self, cluster: int, why: str) -> None:
        """One node job's cluster (its node was aborted, or retried)."""
        await self.remove(f"ClusterId == {cluster} && DAGManJobId == {self.job[0]}", why)

    async def remove_all(self, final: str | None, why: str) -> None:
        """Every node job of the DAG but the FINAL node's."""
        keep = f' && DAGNodeName =!= "{final}"' if final else ""
        if self.job[0]:
            await self.remove(f"DAGManJobId == {self.job[0]}{keep}", why)

    async def remove(self, constraint: str, why: str) -> None:
        try:
            await self.client.act("remove", constraint=constraint, reason=why)
        except (wire.WireError, wire.RemoteError, OSError) as e:
            self.out(f"ERROR: removing node jobs ({constraint}): {e}")
