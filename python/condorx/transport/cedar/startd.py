"""The startd's CEDAR commands: `htcondor2.Startd.drainJobs` and `cancelDrainJobs`
(condor_drain), served by condorx's own DrainJobs and CancelDrain.

The request is an ad (HowFast, ResumeOnCompletion, DrainReason, CheckExpr); the answer
an ad with Result, and RequestID, or ErrorString and ErrorCode when refused.
"""

from __future__ import annotations

from typing import Any

from condorx.classad import ClassAd
from condorx.transport.cedar.face import Call, CedarCommand
from condorx.transport.cedar.query_ad import constraint_of
from condorx.transport.protocol.startd import CancelDrain, DrainJobs

DRAIN_JOBS = 512
CANCEL_DRAIN_JOBS = 513
HOW_FAST = {0: "graceful", 10: "quick", 20: "fast"}
ON_COMPLETION = {0: "nothing", 1: "resume", 2: "exit"}


def _answer(reply: dict[str, Any]) -> ClassAd:
    if reply.get("ok"):
        ad = ClassAd({"Result": True})
        if isinstance(reply.get("request_id"), str):
            ad["RequestID"] = reply["request_id"]
        return ad
    error = reply.get("error") or {}
    return ClassAd(
        {"Result": False, "ErrorCode": 1, "ErrorString": str(error.get("message", "refused"))}
    )


async def _drain(call: Call) -> bool:
    ad = (await call.payload()).classad()
    how = HOW_FAST.get(ad.get("HowFast"), None) if isinstance(ad.get("HowFast"), int) else None
    then = ad.get("ResumeOnCompletion")
    on_completion = ON_COMPLETION.get(then) if isinstance(then, int) else "nothing"
    reason = ad.get("DrainReason")
    if how is None or on_completion is None:
        reply: dict[str, Any] = {
            "ok": False,
            "error": {"message": "a drain as fast or ending as asked is not served"},
        }
    else:
        request = DrainJobs(
            how=how,
            on_completion=on_completion,
            reason=reason if isinstance(reason, str) else "",
            check=constraint_of(ad, "CheckExpr"),
        )
        reply = await call.dispatch(request)
    await call.send(call.writer().classad(_answer(reply)))
    return False


async def _cancel(call: Call) -> bool:
    ad = (await call.payload()).classad()
    request_id = ad.get("RequestID")
    reply = await call.dispatch(
        CancelDrain(request_id=request_id if isinstance(request_id, str) else None)
    )
    await call.send(call.writer().classad(_answer(reply)))
    return False


def commands() -> list[CedarCommand]:
    return [
        CedarCommand(DRAIN_JOBS, "ADMINISTRATOR", _drain, forced=True),
        CedarCommand(CANCEL_DRAIN_JOBS, "ADMINISTRATOR", _cancel, forced=True),
    ]
