"""Changes to queued jobs: actions (condor_rm, condor_hold, ...), edits, condor_now;
and a negotiation cycle asked for."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message, Reply

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Act(Message):
    """remove, remove-x, destroy (DestroyProc), hold, release, suspend or continue the
    jobs named by id or chosen by a constraint; `per_job` for each job's outcome.
    `dry_run`: the outcomes as they would be, nothing changed (the first phase of
    HTCondor's two-phase act)."""

    command = "act"
    action: str
    ids: list[Any] | None = None
    constraint: Any = None
    reason: str | None = None
    per_job: bool = False
    dry_run: bool = False


@record(frozen=True)
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


@record(frozen=True)
class RunNow(Message):
    """condor_now: run `job` (idle) at once on the slot of `vacate` (running), which goes
    back to the queue; both must be the asker's vanilla universe jobs."""

    command = "run_now"
    job: str
    vacate: list[Any]


@record(frozen=True)
class Reschedule(Message):
    """Ask the pool's negotiator for a cycle now (condor_reschedule)."""

    command = "reschedule"


@record(frozen=True)
class Acted(Reply):
    """How many jobs were named and how many changed; the ids refused to this user;
    with `per_job`, each job's outcome and the queue's size."""

    matched: int
    done: int
    denied: list[Any]
    results: dict[str, Any] | None = None
    queue_size: int | None = None
