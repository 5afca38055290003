"""Talking to a startd as the schedd's shadows do: claim a slot, run jobs on the claim
one after another, release it; and, on a connection of their own, suspend, continue or
stop the job a claim runs.

A claim keeps one conversation for its life: a stream of the one connection the schedd
holds to that startd (`condorx.transport.mux`), so that a schedd's running claims are not bounded
by how many files it may open. A job's `run` stays open while the job runs:
the startd's frames on it (the job started, heartbeats, the policy suspended it) are its
lease, and the last one says how the run ended (`RunResult`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import trio

from condorx.classad import ClassAd
from condorx.language.config import Config
from condorx.transport import locate, wire
from condorx.transport.connection import Address, Credentials, call, user_credentials
from condorx.transport.mux import Multiplexer, Stream
from condorx.transport.packed_ad import PackedAd
from condorx.transport.protocol.run_result import RunResult
from condorx.transport.protocol.startd import (
    Claimed,
    ClaimSlot,
    Continue,
    Deactivate,
    Match,
    MatchTaken,
    Release,
    RunEnded,
    RunJob,
    Suspend,
    Vacate,
    Vacated,
)

# A frame of a running job: {"started": pid, "host": ...}, {"alive": ...}, {"suspended": ...}.
Notice = Callable[[dict[str, Any]], Awaitable[None]]


class Claim:
    """A claimed slot, on its connection."""

    def __init__(
        self,
        ch: wire.Channel,
        claim_id: str,
        slot: str,
        slot_ad: PackedAd,
        running: bool = False,
        sent: bytes | None = None,
        fs_domain: str | None = None,
    ) -> None:
        """`slot`: the claimed slot's name (a dynamic slot's, carved for the claim);
        `slot_ad`: its ad as claimed, kept packed for as long as the claim lasts;
        `fs_domain`: its FileSystemDomain, read at every run (whether files travel).
        `running`: the job the claim was made with (`ClaimSlot.job`, packed: `sent`)
        runs already; the first `run` follows it rather than asking again."""
        self.ch = ch
        self.id = claim_id
        self.slot = slot
        self.slot_ad = slot_ad
        self.fs_domain = fs_domain
        self.running = running
        # The last job the startd holds for this claim, as sent: the next is sent as its
        # changes to it.
        self._last: Sent | None = Sent(sent) if running and sent is not None else None

    async def __aenter__(self) -> Claim:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.ch.aclose()

    async def run(
        self, job: ClassAd, files: dict[str, bytes] | None, lease: int, notice: Notice
    ) -> RunResult:
        """Run `job` on the slot; returns how it ended. Each frame while it runs goes to
        `notice`; no frame for `lease` seconds is trio.TooSlowError (the run is lost)."""
        try:
            if self.running:
                self.running = False  # sent with the claim: its frames follow on this stream
            else:
                await self.ch.send(self._request(job, files).to_wire())
            # One scope for the run, its deadline moved on at each frame (not one a frame,
            # nor fail_after's generator and context manager, alive beside each of
            # 100,000 running jobs).
            with trio.CancelScope(deadline=trio.current_time() + lease) as heard:
                while True:
                    reply = await self.ch.receive()
                    heard.deadline = trio.current_time() + lease
                    if isinstance(reply, dict) and "more" in reply:
                        if isinstance(reply["more"], dict):
                            await notice(reply["more"])
                        continue
                    return RunResult.of(RunEnded.from_wire(wire.check(reply)))
            raise trio.TooSlowError  # no frame within the lease
        except BaseException:
            self._last = None  # what the startd holds is not known: the next goes whole
            raise

    def _request(self, job: ClassAd, files: dict[str, bytes] | None) -> RunJob:
        """The run's request: the job whole, or its changes to the claim's last job."""
        body = wire.pack_ad(job.flatten())
        last, self._last = self._last, Sent(body)
        if last is None:
            return RunJob(self.id, body, files)
        base, changed, removed = last.changes(self._last)
        return RunJob(self.id, changed, files, base=base, removed=removed)

    async def release(self) -> None:
        """Give the slot back: the claim is over."""
        await self.ch.request(Release(self.id).to_wire())


class Sent:
    """A job ad as sent to a claim's startd, packed (kept so, the smallest form, while
    its claim runs it)."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    @staticmethod
    def _attrs(body: bytes) -> dict[str, Any]:
        """The one ad of a packed body, its values left packed."""
        attrs = msgpack.unpackb(body, raw=False, strict_map_key=False)[0]
        return attrs if isinstance(attrs, dict) else {}

    def changes(self, new: Sent) -> tuple[str, bytes, list[str]]:
        """This job's id ("cluster.proc"), what `new` sets otherwise (packed, as one
        ad), and the attributes it drops."""
        old, now = self._attrs(self.body), self._attrs(new.body)
        changed = {k: v for k, v in now.items() if old.get(k, _ABSENT) != v}
        job_id = f"{old.get('ClusterId')}.{old.get('ProcId')}"
        return job_id, msgpack.packb([changed]), [k for k in old if k not in now]


_ABSENT = object()


class StartdClient:
    def __init__(
        self, creds: Credentials, nursery: trio.Nursery, claiming: int = 256, timeout: float = 60.0
    ) -> None:
        """Claims to one startd share a connection (`condorx.transport.mux`), whose reading task
        runs in `nursery`. `claiming`: how many claims may be taken up at once, so that
        a cycle's thousands of matches do not all ask in one instant; `timeout`: how
        long a startd may take to accept a connection (one that does not holds its
        place no longer). The claim request itself is not bounded: after a preempting
        match it waits for the old job's retirement."""
        self.creds = creds
        self.streams = Multiplexer(creds, nursery)
        self.claiming = trio.CapacityLimiter(max(1, claiming))
        self.timeout = timeout

    async def claim(self, startd: Address, req: ClaimSlot) -> Claim:
        """Take up a claim on a stream of its own, which ends when the claim is closed
        (`async with`). TooSlowError when the startd does not take the connection within
        the timeout. (Nothing here keeps the request, its first job's ad and files, for
        as long as the claim lasts.)"""
        ch, claimed, running = await self._claim(startd, req)
        try:
            slot_ad = PackedAd.from_wire(claimed.ad, "slot ad")
        except BaseException:
            await ch.aclose()
            raise
        claim_id = claimed.claim_id or req.claim_id
        # A literal string on the wire: read there, not from a second decoding of the ad.
        fs = claimed.ad.get("FileSystemDomain")
        fs_domain = fs if isinstance(fs, str) else None
        return Claim(ch, claim_id, claimed.slot, slot_ad, running, req.job, fs_domain)

    async def _claim(self, startd: Address, req: ClaimSlot) -> tuple[Stream, Claimed, bool]:
        """The claim's stream, the startd's answer, and whether the job the request
        brought runs already (its frames to follow on the stream)."""
        for attempt in (1, 2):
            # The limit holds only while the request goes out: its answer may wait out
            # a preempted job's retirement.
            async with self.claiming:
                with trio.fail_after(self.timeout):
                    ch, reused = await self.streams.open(startd)
                try:
                    await ch.send_request(req.to_wire())
                except BaseException:
                    await ch.aclose()  # a stream's close holds against cancellation
                    raise
            try:
                return (ch, *_claimed(await ch.receive()))
            except BaseException as e:
                await ch.aclose()
                # A shared connection the startd had just closed (or a restarted
                # startd's) read nothing of this request: once more, afresh.
                if not isinstance(e, wire.Closed) or not reused or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def suspend(self, startd: Address, claim_id: str) -> None:
        await call(startd, self.creds, Suspend(claim_id))

    async def resume(self, startd: Address, claim_id: str) -> None:
        await call(startd, self.creds, Continue(claim_id))

    async def deactivate(self, startd: Address, claim_id: str, why: str, job: str) -> None:
        """Stop the claim's job `job` (held or removed: `why`); the claim goes on. A claim
        that has moved on to another job keeps it."""
        await call(startd, self.creds, Deactivate(claim_id, why, job))

    async def match(self, startd: Address, req: Match) -> str:
        """The negotiator's match of a slot; the slot's name (a dynamic one's, carved)."""
        return str(MatchTaken.from_wire(await call(startd, self.creds, req)).slot)


def _claimed(frame: Any) -> tuple[Claimed, bool]:
    """The startd's answer to a claim: its final reply, or, for a claim that brought its
    first job, the frame that says it is claimed before the run's own frames."""
    more = frame.get("more") if isinstance(frame, dict) else None
    if isinstance(more, dict) and isinstance(more.get("claimed"), dict):
        return Claimed.from_wire(more["claimed"]), True
    return Claimed.from_wire(wire.check(frame)), False


async def vacate(cfg: Config, slots: list[str], fast: bool) -> list[str]:
    """condor_vacate on this machine's startd; the slots it vacated."""
    path = locate.startd_address_file(cfg)
    try:
        address = locate.read_address(path)
    except OSError:
        raise OSError(f"no startd is running here ({path} does not exist)") from None
    reply = await call(Address.parse(address), user_credentials(cfg), Vacate(slots, fast))
    return [str(s) for s in Vacated.from_wire(reply).slots]
