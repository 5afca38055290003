"""What the schedd's peers tell it: matches from a negotiator, routed copies from the job
router, a job's exit from its starter."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message, Reply

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Matched(Message):
    """The negotiator matched this job to a slot, under this claim id."""

    command = "matched"
    job: str
    claim_id: str
    startd: str
    slot: str
    user: str = ""
    autocluster: bool = False  # `job` stands for its group (`Autoclusters`): any of it
    request: dict[str, Any] | None = None  # the dynamic slot to carve, claiming a partitionable one
    fs_domain: str = ""  # the slot's FileSystemDomain: whether the first job's files travel
    limits: str | None = None  # the job's concurrency limits (MatchedConcurrencyLimits)


@record(frozen=True)
class Rejected(Message):
    """The jobs a negotiator's cycle left unmatched, and why: each item a [job id,
    reason] (one job of each group it was offered, as HTCondor's negotiator rejects one
    job of an autocluster). The schedd sets their LastRejMatchReason, LastRejMatchTime
    and LastRejMatchNegotiator, which condor_q -better-analyze reports."""

    command = "rejected"
    items: list[Any]
    negotiator: str = ""
    time: int = 0
    # The accounting names the cycle negotiated for here (None: every one this
    # negotiator may serve, as when it had no slot to offer): the end of negotiation
    # for them, whose satisfaction moves a flocking submitter on.
    negotiated: list[str] | None = None


@record(frozen=True)
class MatchedMany(Message):
    """Many of this schedd's jobs matched at once: each item has a `Matched`'s fields
    (the reply is `Each`)."""

    command = "matched_many"
    items: list[Any]


@record(frozen=True)
class Route(Message):
    """The job router's routed copies: each item names a job, a copy and its route."""

    command = "route"
    routes: list[Any]


@record(frozen=True)
class Routed(Reply):
    results: list[Any]  # per item: {"copy": id} or {"error": why}


@record(frozen=True)
class Exited(Message):
    """A job's process ended, with this exit code or signal."""

    command = "exited"
    job: str
    code: int | None = None
    signal: int | None = None


@record(frozen=True)
class ExitRecorded(Reply):
    outcome: str  # completed, requeued, held, ...
