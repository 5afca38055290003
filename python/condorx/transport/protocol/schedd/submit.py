"""Submissions to the schedd: new jobs, queue transactions and reserved cluster ids."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message, Reply

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Submit(Message):
    """New jobs: one cluster ad's attributes and each proc's own (wire maps); with
    `spool`, each proc's input files (name to bytes); `cluster_id` one reserved before;
    `factory`, made as their turn comes."""

    command = "submit"
    procs: list[Any]
    cluster: dict[str, Any] | None = None
    cluster_id: int | None = None
    spool: list[Any] | None = None
    # A job factory (late materialization): {"limit": jobs in the queue at once, 0 for
    # no limit}; the procs are then made as their turn comes. With "digest" (HTCondor's
    # submit digest) and "items" (its rows), the procs are made from them, not sent.
    factory: dict[str, Any] | None = None
    # Jobs whose input files come later (HTCondor's spool=True): queued held for them,
    # their ads rewritten to run from their spool directories.
    spooling: bool | None = None


@record(frozen=True)
class Transact(Message):
    """Submissions (Submit's fields, each a map) and edits (Edit's) as one queue change,
    all or nothing: a queue-management transaction of HTCondor's clients at its commit."""

    command = "transact"
    submits: list[Any]
    edits: list[Any]


@record(frozen=True)
class Reserve(Message):
    """The next cluster id, for a submission that needs $(Cluster) before its ads; with
    `count`, that many in a row (the first is replied), for a client that submits many
    clusters one after another (condor_dagman)."""

    command = "reserve"
    count: int | None = None


@record(frozen=True)
class Submitted(Reply):
    cluster: int
    count: int
    warnings: list[Any] | None = None  # what a submit requirement _IS_WARNING said


@record(frozen=True)
class JobIds(Reply):
    jobs: list[Any]  # "cluster.proc"


@record(frozen=True)
class Transacted(Reply):
    clusters: list[Any]  # each submission's cluster id, in order
    warnings: list[Any] | None = None  # what a submit requirement _IS_WARNING said


@record(frozen=True)
class Reserved(Reply):
    cluster: int
