"""Spooled jobs' files: input staged in, output retrieved or staged out."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message, Reply

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Retrieve(Message):
    """A spooled job's output files (condor_transfer_data)."""

    command = "retrieve"
    job: str
    # "spool": every output file by its name in the spool (HTCondor's clients put them
    # back themselves); else stdout and stderr under the starter's names.
    names: str | None = None


@record(frozen=True)
class StageIn(Message):
    """Input files of jobs queued without them (HTCondor's SPOOL_JOB_FILES): without
    `files`, whether the peer's `jobs` may take them (each held for them, none taken);
    with `files` (per job, name to bytes), they are kept and the jobs released."""

    command = "stage_in"
    jobs: list[Any]
    files: list[Any] | None = None


@record(frozen=True)
class StageOut(Message):
    """A retrieval of spooled jobs' output (HTCondor's TRANSFER_DATA): `constraint`
    picks the peer's jobs (StageOutStart set on the finished ones); `done` with `jobs`
    records that it is over (StageOutFinish), so jobs kept for it may leave."""

    command = "stage_out"
    constraint: str | None = None
    jobs: list[Any] | None = None
    done: bool | None = None


@record(frozen=True)
class Output(Reply):
    """A spooled job's output files."""

    files: dict[str, Any]  # name -> bytes
