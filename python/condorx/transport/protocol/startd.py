"""The startd's requests."""

from __future__ import annotations

from condorx.record import field, record
from condorx.transport.protocol.message import Message, Reply

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Match(Message):
    """The negotiator's match of a slot (a dynamic slot of `request`'s size out of a
    partitionable one) for a schedd's user; `preempts` ("rank" or "priority") when the
    slot's current claim must make way."""

    command = "match"
    slot: str
    claim_id: str
    schedd: str = ""
    user: str = ""
    preempts: str | None = None
    request: dict[str, Any] | None = None
    limits: str | None = None  # the job's concurrency limits: the slot shows them
    account: str = ""  # the accounting name matched (AccountingGroup, else the owner)


@record(frozen=True)
class Matches(Message):
    """Many matches of this startd's slots at once (one cycle's, or a chunk of it): each
    item has a `Match`'s fields. Each is taken or refused on its own (the reply is
    `Each`, of `MatchTaken`s)."""

    command = "matches"
    items: list[Any]


@record(frozen=True)
class ClaimSlot(Message):
    """A schedd takes up the claim the negotiator made for it: a claim id the startd was
    told of (`Match`), or the one its slot offers in its private ad, with `request` the
    dynamic slot to carve when the slot is partitionable. With `job` (as `RunJob`'s), the
    claim's first job runs at once: the reply streams `{"more": {"claimed": Claimed}}`
    and then the run's frames and end, as a `RunJob` on the claim would. With `coalesce`
    (condor_now's, HTCondor's COALESCE_SLOTS), the claim is made of those claims: their
    dynamic slots end, and one is carved for `job` out of their partitionable slot, under
    a claim id of the startd's."""

    command = "claim"
    claim_id: str
    slot: str = ""
    user: str = ""
    schedd: str = ""
    client_machine: str = ""
    request: dict[str, Any] | None = None
    job: bytes | None = None
    files: dict[str, Any] | None = None
    coalesce: list[Any] | None = None
    limits: str | None = None  # the negotiator's MatchedConcurrencyLimits: the slot shows them
    account: str = ""  # the accounting name its jobs are charged to (AccountingGroup, else owner)


@record(frozen=True)
class RunJob(Message):
    """Run a job (its flattened ad, packed: `wire.pack_ad`) on the claim, with its input
    files. With `base` (the claim's last job, "cluster.proc"), `job` holds only what
    differs from that job's ad, and `removed` the attributes it has that this one has
    not: a claim's jobs are mostly alike, and the whole ad travels once per claim."""

    command = "run"
    claim_id: str
    job: bytes
    files: dict[str, Any] | None = None
    base: str | None = None
    removed: list[Any] | None = None


@record(frozen=True)
class Deactivate(Message):
    """Stop the claim's job `job` (whichever runs when None); `why` it stops (hold,
    remove or evict) is for its JOB_EXIT hook."""

    command = "deactivate"
    claim_id: str
    why: str = "evict"
    job: str | None = None


@record(frozen=True)
class Suspend(Message):
    command = "suspend"
    claim_id: str


@record(frozen=True)
class Continue(Message):
    command = "continue"
    claim_id: str


@record(frozen=True)
class Release(Message):
    """The claim is over."""

    command = "release"
    claim_id: str


@record(frozen=True)
class Vacate(Message):
    """condor_vacate: take the jobs off these slots (all when none are named)."""

    command = "vacate"
    slots: list[Any] = field(default_factory=list)
    fast: bool = False


@record(frozen=True)
class MatchTaken(Reply):
    slot: str  # the slot the claim is for (a dynamic slot's name, once carved)


@record(frozen=True)
class Claimed(Reply):
    slot: str
    ad: dict[str, Any]  # the slot's ad as advertised
    claim_id: str = ""  # the claim's own id, when not the one claimed with (a carved slot's)


@record(frozen=True)
class RunEnded(Reply):
    """How a job's run ended: its exit attributes (`outcome`), wall time and output
    files; or it missed its deferral (`missed`), was taken off (`vacated`, why) or could
    not start (`failed`, why, with the hold it asks for). `claim_ended`: the claim ended
    with it, and takes no other job."""

    outcome: dict[str, Any] | None = None
    wall: float | None = None
    files: dict[str, Any] | None = None
    missed: dict[str, Any] | None = None
    vacated: str | None = None
    failed: str | None = None
    hold_code: int | None = None
    hold_subcode: int | None = None
    claim_ended: bool = False


@record(frozen=True)
class Deactivated(Reply):
    running: bool  # whether the named job was running (and is now being stopped)


@record(frozen=True)
class Vacated(Reply):
    slots: list[Any]


@record(frozen=True)
class QuerySlots(Message):
    """This startd's slot ads as they stand now (condor_who asks the startd itself, not the
    collector): the busy ones' also name their starter's and job's processes."""

    command = "query_slots"


@record(frozen=True)
class SlotAds(Reply):
    ads: bytes  # packed ads (wire.pack_ads)


@record(frozen=True)
class DrainJobs(Message):
    """condor_drain: take no new jobs, let the running ones go as `how` says (graceful,
    quick, fast), then do `on_completion` (nothing, resume, exit, restart, reconfig).
    `check`, when given, must be true of every slot or nothing happens; `start`, when
    given, is the slots' START while a graceful drain waits for its jobs (jobs it takes
    have no retirement time). `machine` names the machine drained, for an address that
    answers for many (the pool simulator)."""

    command = "drain"
    how: str = "graceful"
    on_completion: str = "nothing"
    reason: str = ""
    check: str | None = None
    machine: str = ""
    start: str | None = None


@record(frozen=True)
class DrainStarted(Reply):
    request_id: str


@record(frozen=True)
class CancelDrain(Message):
    """condor_drain -cancel: the slots take jobs again (only this request's, if named)."""

    command = "cancel_drain"
    request_id: str | None = None
    machine: str = ""  # as DrainJobs's


@record(frozen=True)
class Peek(Message):
    """condor_tail: the end of a running job's files, or what follows `offsets` in them.
    Files are its standard output and error (`stdout`, `stderr`) or names in the
    directory it runs in; the job's owner alone may read them."""

    command = "peek"
    job: str
    files: list[Any] | None = None
    stdout: bool = True
    stderr: bool = False
    offsets: dict[str, Any] | None = None  # name -> where to read on from
    max_bytes: int = 1024


@record(frozen=True)
class Peeked(Reply):
    data: dict[str, Any]  # name -> bytes
    sizes: dict[str, Any]  # name -> the file's size as it was read
