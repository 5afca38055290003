"""The schedd's requests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from condorx.transport.protocol.message import Message, Reply


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Transact(Message):
    """Submissions (Submit's fields, each a map) and edits (Edit's) as one queue change,
    all or nothing: a queue-management transaction of HTCondor's clients at its commit."""

    command = "transact"
    submits: list[Any]
    edits: list[Any]


@dataclass(frozen=True)
class Reserve(Message):
    """The next cluster id, for a submission that needs $(Cluster) before its ads; with
    `count`, that many in a row (the first is replied), for a client that submits many
    clusters one after another (condor_dagman)."""

    command = "reserve"
    count: int | None = None


@dataclass(frozen=True)
class Route(Message):
    """The job router's routed copies: each item names a job, a copy and its route."""

    command = "route"
    routes: list[Any]


@dataclass(frozen=True)
class QueryJobs(Message):
    """The jobs that match `constraint`, whole or as the values of `exprs`; `after` a
    job id for the next page, `routes` route ads whose requirements a job must meet.
    (A negotiator asks for `Autoclusters` instead.)"""

    command = "query"
    constraint: Any = None
    exprs: list[Any] | None = None
    limit: int | None = None
    after: str | None = None
    routes: list[Any] | None = None
    # Whole ads in HTCondor's wire form (`cedar.codec`), "clear" or "encrypted" strings:
    # for the CEDAR face. Either way, with only the `projection`'s attributes when one is
    # given (condor_q -af asks only for what its expressions read).
    cedar: str | None = None
    projection: list[Any] | None = None
    # Cluster ads too (each before its procs), and (procs False) only them: what
    # condor_q -factory and the bindings' QueryOpt.IncludeClusterAd / ClusterAds ask.
    clusters: bool | None = None
    procs: bool | None = None
    # Only how many matching jobs have each JobStatus, as [[status, count], ...] in one
    # chunk (condor_q -totals: no row of a million-job queue crosses the wire).
    totals: bool | None = None


@dataclass(frozen=True)
class Reschedule(Message):
    """Ask the pool's negotiator for a cycle now (condor_reschedule)."""

    command = "reschedule"


@dataclass(frozen=True)
class History(Message):
    """Finished jobs from the schedd's history, newest first: those `constraint` chooses,
    at most `limit`, stopping at the first for which `since` holds (an expression, or a
    job id `C.P`); whole ads, or in HTCondor's wire form (`cedar`, `projection`, as for
    `QueryJobs`). Streamed."""

    command = "history"
    constraint: Any = None
    limit: int | None = None
    since: str | None = None
    cedar: str | None = None
    projection: list[Any] | None = None


@dataclass(frozen=True)
class Autoclusters(Message):
    """For a negotiator: the idle jobs that match `constraint` and are not matched yet,
    grouped as slots with these policies (`pool`: their ads as one packed body) cannot
    tell them apart. Streamed in chunks, the groups in queue order, each chunk
    [[how many jobs of each group], the first job of each as one packed body]; a match
    for that job (`Matched.autocluster`) may go to any of its group."""

    command = "autoclusters"
    constraint: Any = None
    pool: bytes = b""


@dataclass(frozen=True)
class Act(Message):
    """remove, remove-x, hold, release, suspend or continue the jobs named by id or
    chosen by a constraint; `per_job` for each job's outcome. `dry_run`: the outcomes as
    they would be, nothing changed (the first phase of HTCondor's two-phase act)."""

    command = "act"
    action: str
    ids: list[Any] | None = None
    constraint: Any = None
    reason: str | None = None
    per_job: bool = False
    dry_run: bool = False


@dataclass(frozen=True)
class Edit(Message):
    """Set attributes (name to expression text) of the jobs named or chosen, and take
    the `unset` ones out. `per_job`: each named job's outcome in the reply's results.
    `strict`: all or nothing, as condor_qedit's transaction (a named job missing or
    another user's changes no job). `only_mine`: the constraint chooses among this
    user's jobs alone."""

    command = "edit"
    attrs: dict[str, Any]
    ids: list[Any] | None = None
    constraint: Any = None
    evaluate: bool = False
    per_job: bool = False
    strict: bool = False
    only_mine: bool = False
    unset: list[Any] | None = None


@dataclass(frozen=True)
class Exited(Message):
    """A job's process ended, with this exit code or signal."""

    command = "exited"
    job: str
    code: int | None = None
    signal: int | None = None


@dataclass(frozen=True)
class Retrieve(Message):
    """A spooled job's output files (condor_transfer_data)."""

    command = "retrieve"
    job: str
    # "spool": every output file by its name in the spool (HTCondor's clients put them
    # back themselves); else stdout and stderr under the starter's names.
    names: str | None = None


@dataclass(frozen=True)
class StageIn(Message):
    """Input files of jobs queued without them (HTCondor's SPOOL_JOB_FILES): without
    `files`, whether the peer's `jobs` may take them (each held for them, none taken);
    with `files` (per job, name to bytes), they are kept and the jobs released."""

    command = "stage_in"
    jobs: list[Any]
    files: list[Any] | None = None


@dataclass(frozen=True)
class StageOut(Message):
    """A retrieval of spooled jobs' output (HTCondor's TRANSFER_DATA): `constraint`
    picks the peer's jobs (StageOutStart set on the finished ones); `done` with `jobs`
    records that it is over (StageOutFinish), so jobs kept for it may leave."""

    command = "stage_out"
    constraint: str | None = None
    jobs: list[Any] | None = None
    done: bool | None = None


@dataclass(frozen=True)
class RunNow(Message):
    """condor_now: run `job` (idle) at once on the slot of `vacate` (running), which goes
    back to the queue; both must be the asker's vanilla universe jobs."""

    command = "run_now"
    job: str
    vacate: list[Any]


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class MatchedMany(Message):
    """Many of this schedd's jobs matched at once: each item has a `Matched`'s fields
    (the reply is `Each`)."""

    command = "matched_many"
    items: list[Any]


@dataclass(frozen=True)
class Submitted(Reply):
    cluster: int
    count: int


@dataclass(frozen=True)
class JobIds(Reply):
    jobs: list[Any]  # "cluster.proc"


@dataclass(frozen=True)
class Transacted(Reply):
    clusters: list[Any]  # each submission's cluster id, in order


@dataclass(frozen=True)
class Reserved(Reply):
    cluster: int


@dataclass(frozen=True)
class Routed(Reply):
    results: list[Any]  # per item: {"copy": id} or {"error": why}


@dataclass(frozen=True)
class Acted(Reply):
    """How many jobs were named and how many changed; the ids refused to this user;
    with `per_job`, each job's outcome and the queue's size."""

    matched: int
    done: int
    denied: list[Any]
    results: dict[str, Any] | None = None
    queue_size: int | None = None


@dataclass(frozen=True)
class ExitRecorded(Reply):
    outcome: str  # completed, requeued, held, ...


@dataclass(frozen=True)
class Output(Reply):
    """A spooled job's output files."""

    files: dict[str, Any]  # name -> bytes
