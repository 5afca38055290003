"""What a startd tells the starter of a claim, over the pipe between them (no server, no
handshake: the starter is the startd's child). The starter's answers are frames of the
run (`started`, `alive`, `waiting`, then `done`, `failed`, `missed` or `vacated`)."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class StartJob(Message):
    """Run a job (its ad, packed: `wire.pack_ad`) in a sandbox under `scratch`, with its
    input files;
    `heartbeat` seconds between `alive` frames; `user` the account it runs as (when the
    startd is root); `hooks`, `updates` and `slot_ad` for its job hooks; `env`, what
    the job's environment says of its slot's custom resources (CUDA_VISIBLE_DEVICES)."""

    command = "run"
    job: bytes
    scratch: str
    slot: str = ""
    files: dict[str, Any] | None = None
    heartbeat: float = 5.0
    user: str | None = None
    hooks: list[Any] | None = None
    updates: list[Any] | None = None
    slot_ad: dict[str, Any] | None = None
    env: dict[str, str] | None = None


@record(frozen=True)
class SignalJob(Message):
    """Send `signal` to the job's whole process tree; `why` (evict, hold, remove) is for
    its JOB_EXIT hook."""

    command = "signal"
    signal: int
    why: str = ""
