"""Queries of the schedd's queue and history (condor_q, condor_history, a negotiator's
autoclusters)."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
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
    # The job sets' ads too (USE_JOBSETS), before the jobs: QueryOpt.IncludeJobsetAds.
    jobsets: bool | None = None
    # Only how many matching jobs have each JobStatus, as [[status, count], ...] in one
    # chunk (condor_q -totals: no row of a million-job queue crosses the wire).
    totals: bool | None = None


@record(frozen=True)
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


@record(frozen=True)
class Autoclusters(Message):
    """For a negotiator: the idle jobs that match `constraint` and are not matched yet,
    grouped as slots with these policies (`pool`: their ads as one packed body) cannot
    tell them apart. Streamed in chunks, the groups in queue order, each chunk
    [[how many jobs of each group], the first job of each as one packed body]; a match
    for that job (`Matched.autocluster`) may go to any of its group."""

    command = "autoclusters"
    constraint: Any = None
    pool: bytes = b""


@record(frozen=True)
class QueryClaims(Message):
    """The slots this schedd holds claims on, as their ads (with the claim's Activity),
    those `constraint` chooses, in HTCondor's wire form (`cedar`, `projection`, as for
    `QueryJobs`): what HTCondor's schedd answers QUERY_STARTD_ADS with
    (`Schedd.get_claims`). Streamed."""

    command = "query_claims"
    constraint: Any = None
    cedar: str | None = None
    projection: list[Any] | None = None


@record(frozen=True)
class AggregateJobs(Message):
    """The queue's jobs aggregated as HTCondor's schedd aggregates them for condor_q
    -group-by (`by`: the attributes, and those their values read) or -autocluster (`by`
    None: the schedd's default autoclusters of its idle jobs). One ad per group, with
    its attributes' values, `Id` (or `AutoClusterId`), `JobCount` and `JobIds` (at most
    `max_ids` named); `constraint` chooses among the groups' ads (and, grouping by `by`,
    among the jobs first), `limit` the first so many. Whole ads, or in HTCondor's wire
    form (`cedar`, `projection`, as for `QueryJobs`). Streamed."""

    command = "aggregate_jobs"
    by: list[Any] | None = None
    constraint: Any = None
    limit: int | None = None
    max_ids: int | None = None
    cedar: str | None = None
    projection: list[Any] | None = None
