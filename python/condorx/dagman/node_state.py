"""A DAG node's state in a run, with no I/O: its status (NOT_READY, READY, PRERUN,
SUBMITTED, POSTRUN, DONE, ERROR, FUTILE, as HTCondor's DAGMan names them), the current
try's record (`Run`), and the DAG's own status and throttles. `engine` moves nodes
between these."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Generic, TypeVar, cast

T = TypeVar("T")

NOT_READY, READY, PRERUN = "NOT_READY", "READY", "PRERUN"
SUBMITTED, POSTRUN = "SUBMITTED", "POSTRUN"
DONE, ERROR, FUTILE = "DONE", "ERROR", "FUTILE"

# HTCondor's special return values (dag.h).
SUBMIT_FAILED, JOB_ABORTED, JOB_SKIPPED = -1001, -1002, -1004


class DagStatus(IntEnum):
    """DAG_Status, as HTCondor numbers it."""

    OK = 0
    ERROR = 1
    NODE_FAILED = 2
    ABORT = 3
    RM = 4
    CYCLE = 5
    HALTED = 6


@dataclass(slots=True)
class Limits:
    """The throttles: 0 (or less) is no limit."""

    max_jobs: int = 0  # nodes with jobs in the queue
    max_idle: int = 1000  # idle node job procs
    max_pre: int = 20
    max_post: int = 20
    categories: dict[str, int] = field(default_factory=dict)
    always_run_post: bool = False  # DAGMAN_ALWAYS_RUN_POST: POST runs after a failed PRE
    max_holds: int = 100  # DAGMAN_MAX_JOB_HOLDS: this many procs held removes the job


@dataclass(slots=True)
class Run:
    """One try at a node: its PRE script's outcome, its job and that job's procs, and
    what went wrong. Made at first use, and let go when the node is done: most nodes of a
    big DAG wait or are done, and hold none."""

    pre_done: bool = False
    pre_retval: int | None = None  # $PRE_SCRIPT_RETURN
    cluster: int | None = None
    procs: int = 0
    queued: int = 0  # procs in the queue
    failed: bool = False  # a proc failed
    job_retval: int | None = None  # $RETURN
    error: str = ""
    idle: set[int] = field(default_factory=set)
    held: set[int] = field(default_factory=set)
    ended: set[int] = field(default_factory=set)  # terminated or aborted
    codes: dict[int, int | None] = field(default_factory=dict)  # exit (None: aborted)


_NO_RUN = Run()  # what a node with no try under way reads (never written)


class _InRun(Generic[T]):
    """A State attribute kept in its Run: read from it (or the defaults), set into it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, state: State, owner: type | None = None) -> T:
        run = state.jobs if state.jobs is not None else _NO_RUN
        return cast(T, getattr(run, self.name))

    def __set__(self, state: State, value: T) -> None:
        setattr(state.run, self.name, value)


@dataclass(slots=True)
class State:
    """What is happening to one node."""

    status: str = NOT_READY
    waiting: int = 0  # parents not yet done
    retries: int = 0  # runs after the first
    retval: int = 0  # the node's return value as DAGMan keeps it
    seq: int = 0  # its entry in the ready queue (older entries are stale)
    jobs: Run | None = None  # the try under way

    pre_done = _InRun[bool]("pre_done")
    pre_retval = _InRun[int | None]("pre_retval")
    cluster = _InRun[int | None]("cluster")
    procs = _InRun[int]("procs")
    queued = _InRun[int]("queued")
    failed = _InRun[bool]("failed")
    job_retval = _InRun[int | None]("job_retval")
    error = _InRun[str]("error")

    @property
    def run(self) -> Run:
        if self.jobs is None:
            self.jobs = Run()
        return self.jobs
