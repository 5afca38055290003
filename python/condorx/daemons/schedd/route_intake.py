"""The job router's routed copies entering the queue: each copy (a new job of its
original's owner) and its tie to the original made in one transaction (the tie's rules are
`routing`'s). A copy the route sandboxes (JobShouldBeSandboxed) runs from its spool
directory, written with its original owner's files before the copy is queued."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import trio

from condorx.daemons.core.server import Peer
from condorx.daemons.schedd import entry, routing, spool, transitions
from condorx.daemons.schedd.clock import Clock
from condorx.daemons.schedd.identity import Identity
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.shadow import Shadows
from condorx.daemons.schedd.store import Key, job_id, parse_job_id
from condorx.daemons.schedd.submission import Submission
from condorx.errors import Refusal, Refused
from condorx.language.attrs import JobStatus
from condorx.transport import wire
from condorx.transport.protocol.schedd.peers import Route, Routed

# A sandboxed copy's spooled names and its input files.
Sandbox = tuple[dict[str, Any], dict[str, bytes]]
# Each route item's sandbox (with the copy's cluster id), why it has none it needs, or None.
Box = tuple[Sandbox, int] | str | None


class RouteIntake:
    def __init__(
        self, ledger: Ledger, me: Identity, shadows: Shadows, root: Path, clock: Clock
    ) -> None:
        self.ledger = ledger
        self.me = me
        self.shadows = shadows
        self.root = root  # the spool
        self.clock = clock

    async def route(self, peer: Peer, req: Route, ch: wire.Channel) -> Routed:
        """`routes` lists (job, copy's attributes, route name). Each result is
        `{"copy": id}` or `{"error": why}` (the job is gone, or no longer idle)."""
        items = req.routes
        owners = {
            str(item.get("job")): ad.get("Owner")
            for item in items
            if isinstance(item, dict)
            and (key := parse_job_id(item.get("job"))) is not None
            and (ad := self.ledger.get(key)) is not None
        }
        sandboxes = await trio.to_thread.run_sync(_gather_sandboxes, items, owners)
        boxes = await self._spool(items, sandboxes, owners)
        now = self.clock()
        try:
            results = await self.ledger.change(lambda txn: self._route_all(txn, items, boxes, now))
        finally:
            copies = [(box[1], 0) for box in boxes if isinstance(box, tuple)]
            spool.clean_unqueued(self.root, copies, lambda k: bool(self.ledger.procs(k[0])))
        return Routed(results)

    async def _spool(
        self, items: list[Any], sandboxes: list[Sandbox | str | None], owners: dict[str, object]
    ) -> list[Box]:
        """The sandboxed copies' spool directories, written before the copies exist: their
        cluster ids first, then the files."""
        wanted = sum(isinstance(box, tuple) for box in sandboxes)
        ids: Iterator[int] = iter(())
        if wanted:
            ids = iter(await self.ledger.change(lambda t: [t.new_cluster() for _ in range(wanted)]))
        boxes: list[Box] = []
        writes: dict[Path, tuple[dict[str, bytes], str | None]] = {}
        for item, box in zip(items, sandboxes, strict=True):
            if not isinstance(box, tuple):
                boxes.append(box)
                continue
            cluster = next(ids)
            owner = str(owners.get(str(item.get("job"))))
            writes[spool.job_dir(self.root, (cluster, 0))] = (box[1], owner)
            boxes.append((box, cluster))
        if not writes:  # most routes sandbox nothing: no thread for it
            return boxes
        try:
            await trio.to_thread.run_sync(spool.write_all, writes)
        except OSError as e:
            raise Refused(Refusal.SPOOL, f"cannot write the sandboxes: {e}") from None
        return boxes

    def _route_all(
        self, txn: Transaction, items: list[Any], boxes: list[Box], now: int
    ) -> list[dict[str, str]]:
        results: list[dict[str, str]] = []
        for item, box in zip(items, boxes, strict=True):
            try:
                copy = self._route_one(txn, item, now, box)
            except transitions.QueueError as e:
                results.append({"error": str(e)})
                continue
            results.append({"copy": job_id(copy)})
        return results

    def _route_one(self, txn: Transaction, item: Any, now: int, box: Box) -> Key:
        if not isinstance(item, dict):
            raise transitions.QueueError(Refusal.BAD_REQUEST, "a route item must be a map")
        original = parse_job_id(item.get("job"))
        ad = txn.job(original) if original is not None else None
        copy, route = item.get("copy"), str(item.get("route") or "")
        if original is None or ad is None:
            raise transitions.QueueError(Refusal.NOT_FOUND, f"no job {item.get('job')!r}")
        if ad.get("JobStatus") != JobStatus.IDLE or routing.is_managed(ad):
            raise transitions.QueueError(
                Refusal.BUSY, f"job {item.get('job')} is not idle and free"
            )
        if self.shadows.busy(original):
            raise transitions.QueueError(Refusal.BUSY, f"job {item.get('job')} is being matched")
        if not isinstance(copy, dict) or not route:
            raise transitions.QueueError(
                Refusal.BAD_REQUEST, "a route item needs a copy and a route"
            )
        if isinstance(box, str):
            raise transitions.QueueError(Refusal.SPOOL, f"job {item.get('job')}: {box}")
        who = entry.Submitter(str(ad.get("Owner")), self.me.uid_domain, self.me.name)
        if box is not None:
            # JobShouldBeSandboxed: the copy runs from its spool directory.
            (paths, files), cluster = box
            copy = {**copy, **paths}
            spool.mark(copy, spool.job_dir(self.root, (cluster, 0)), files)
        try:
            sub = Submission.decode(copy, [{}])
        except (Refused, wire.WireError) as e:  # refused whole, before any change
            raise transitions.QueueError(Refusal.BAD_REQUEST, str(e)) from None
        if box is None:
            cluster = txn.new_cluster()
        entry.submit(txn, who, sub, now, cluster=cluster)
        routing.tie(txn, original, (cluster, 0), route, now)
        return (cluster, 0)


def _gather_sandboxes(items: list[Any], owners: dict[str, object]) -> list[Sandbox | str | None]:
    """For each route item that asks for a sandbox, its input files, read from where the
    copy names them with its original's owner's rights (or why they cannot be). A
    route's shared proxy is the pool's, read with this schedd's own."""
    out: list[Sandbox | str | None] = []
    for item in items:
        if not isinstance(item, dict) or not item.get("sandbox"):
            out.append(None)
            continue
        try:
            copy = wire.ad_from_wire(item.get("copy"), "routed copy")
            shared = item.get("shared_proxy")
            if isinstance(shared, str) and shared:
                copy["X509UserProxy"] = "/dev/null"  # not the user's to read: below
            owner = owners.get(str(item.get("job")))
            paths, files = spool.gather(copy, owner or "nobody")
            if isinstance(shared, str) and shared:
                leaf = Path(shared).name
                files[leaf] = Path(shared).read_bytes()
                paths["X509UserProxy"] = leaf
            out.append((paths, files))
        except (spool.SpoolError, wire.WireError) as e:
            out.append(str(e))
        except OSError as e:
            out.append(f"cannot read the shared proxy: {e.strerror}")
    return out
