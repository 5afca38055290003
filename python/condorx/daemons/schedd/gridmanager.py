"""The gridmanager: grid universe jobs whose GridResource is `condor <schedd> <collector>`
are handed to that other condorx pool's schedd (HTCondor's Condor-C), and kept in step.

Each pass compares, per remote schedd, this queue's grid jobs with the jobs this schedd
submitted there (found by SubmitterSchedd; each names its local job in
SubmitterGlobalJobId), and acts on the difference:

- an idle local job with no remote job is submitted, its input files spooled with it;
- a remote job whose local job does not know it yet (this schedd stopped between the
  remote submit and recording it) is adopted, so nothing is submitted twice;
- the remote job's Idle, Running and Suspended show on the local job; held or removed
  there, the local job is held with the reason;
- a completed remote job's output is fetched into the local job's own output files, the
  local job completes with its exit code, and only then is the remote job let go from its
  queue (it stays there until then: LeaveJobInQueue);
- a local job held or removed has its remote job removed (a removed one leaves this
  queue once that is done), and a remote job whose local job is gone is removed too.

Everything the passes need is in the two queues, so either schedd killed at any moment
and started again leaves no job lost, run twice or orphaned.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from condorx.classad import ClassAd
from condorx.client.schedd import ScheddClient
from condorx.daemons.schedd import grid_job, grid_plan, spool
from condorx.daemons.schedd import transitions as t
from condorx.daemons.schedd.grid_resources import KnownResources
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.queue import EventKind, Transaction
from condorx.daemons.schedd.remote import Remote, RemoteUnavailable, Resource
from condorx.daemons.schedd.staging import OutputFailure, write_outputs
from condorx.daemons.schedd.store import Key
from condorx.language.attrs import HoldCode, JobStatus, Universe
from condorx.language.config import Config
from condorx.transport import locate, wire
from condorx.transport.protocol.schedd.files import Output, Retrieve
from condorx.transport.protocol.schedd.submit import Submit, Submitted

log = logging.getLogger("condorx.gridmanager")

# What a completed local job takes from its remote job.
FINAL = ("RemoteWallClockTime", "RemoteUserCpu", "RemoteSysCpu")
BATCH = 500  # jobs per remote submit
BATCH_BYTES = 64 << 20  # spooled bytes per remote submit


class GridManager:
    def __init__(self, ledger: Ledger, cfg: Config, name: str) -> None:
        """`ledger`: the queue its jobs are read from and changed through; `name`: this
        schedd's, which its remote jobs carry as SubmitterSchedd."""
        self.ledger = ledger
        self.cfg = cfg
        self.name = name
        self.interval = max(1, self.cfg.get_int("GRIDMANAGER_JOB_PROBE_INTERVAL", 60))
        self.remotes: dict[Resource, Remote] = {}
        self.known = KnownResources(Path(locate.spool(self.cfg)) / "grid_resources")
        self.down: set[Resource] = set()  # resources whose last pass failed
        self.wake = trio.Event()

    def poke(self) -> None:
        """Something changed that a pass should see now (a submit, a route, a release)."""
        self.wake.set()

    async def loop(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """A pass every GRIDMANAGER_JOB_PROBE_INTERVAL, and soon after a poke."""
        task_status.started()
        while True:
            try:
                await self.run_pass()
            except Exception:
                log.exception("gridmanager pass failed")  # the next pass tries again
            with trio.move_on_after(self.interval):
                await self.wake.wait()
            self.wake = trio.Event()

    async def run_pass(self) -> int:
        """One pass over every remote schedd that has jobs of ours; returns the number
        of jobs submitted."""
        by_resource: dict[Resource, list[tuple[Key, ClassAd]]] = {}
        for key, ad in self.ledger.snapshot():
            if ad.get("JobUniverse") != Universe.GRID:
                continue
            resource = Resource.parse(ad.get("GridResource"))
            if resource is not None:
                by_resource.setdefault(resource, []).append((key, ad))
        for resource in self.known:  # jobs of ours may remain there with none here
            by_resource.setdefault(resource, [])
        submitted = 0
        for resource, jobs in by_resource.items():
            remote = self.remotes.setdefault(resource, Remote(self.cfg, resource))
            try:
                submitted += await self._sync(remote, jobs)
            except RemoteUnavailable as e:
                log.warning("%s: %s; its %d jobs wait", resource, e, len(jobs))
                await self._resource_is(resource, jobs, up=False)
            except (OSError, wire.WireError) as e:
                remote.forget()
                log.warning("%s: %s; its %d jobs wait", resource, e, len(jobs))
                await self._resource_is(resource, jobs, up=False)
            except wire.RemoteError as e:  # refused: the other resources go on
                log.warning("%s refused a request: %s", resource, e)
            else:
                await self._resource_is(resource, jobs, up=True)
        return submitted

    async def _resource_is(
        self, resource: Resource, jobs: list[tuple[Key, ClassAd]], *, up: bool
    ) -> None:
        """A resource found down, or up again: the user logs of the jobs it holds say so
        (events 025 and 026), once per change."""
        if up == (resource not in self.down):
            return
        if up:
            self.down.discard(resource)
        else:
            self.down.add(resource)
        there = [k for k, ad in jobs if "GridJobId" in ad and JobStatus.of(ad) in grid_plan.ACTIVE]
        if not there:
            return

        def note(txn: Transaction) -> None:
            for key in there:
                if txn.job(key) is not None:
                    kind = EventKind.GRID_UP if up else EventKind.GRID_DOWN
                    txn.event(kind, key, resource=str(resource))

        await self.ledger.change(note)

    async def _sync(self, remote: Remote, jobs: list[tuple[Key, ClassAd]]) -> int:
        client = await remote.client()
        found = await self._remote_jobs(client, remote.identity)
        if not jobs and not found:  # nothing of ours either side: no need to visit it
            await trio.to_thread.run_sync(self.known.discard, remote.resource)
            return 0
        plan = grid_plan.of(jobs, found, remote.resource)
        await self._apply_local(plan, remote.resource)
        await self._finish(client, plan, jobs, remote.resource)
        await self._clean_remote(client, plan)
        return await self._submit(client, plan.submit, remote.resource)

    async def _remote_jobs(self, client: ScheddClient, owner: str) -> dict[str, list[list[Any]]]:
        """Our jobs in the remote queue, by the local job each stands for: those we own
        there (anyone could write SubmitterSchedd into a job of theirs)."""
        mine = (
            f"SubmitterSchedd == {wire.value_to_wire_text(self.name)}"
            f" && Owner == {wire.value_to_wire_text(owner)}"
        )
        found: dict[str, list[list[Any]]] = {}
        async for rows in client.query_rows(grid_plan.ROWS, mine):
            for row in rows:
                if isinstance(row[0], str):
                    found.setdefault(row[0], []).append(row)
        return found

    # -- the local side -------------------------------------------------------------------

    async def _apply_local(self, plan: grid_plan.Plan, resource: Resource) -> None:
        if not (plan.adopt or plan.mirror or plan.hold or plan.detach):
            return
        now = int(time.time())

        def change(txn: Transaction) -> None:
            for key, remote_id in plan.adopt.items():
                _record(txn, key, resource, remote_id)
            for key, status in plan.mirror.items():
                _mirror(txn, key, status, resource, now)
            for key, why in plan.hold.items():
                if txn.job(key) is not None:
                    t.hold(txn, key, why, HoldCode.JOB_POLICY, 0, now, by="gridmanager")
                    txn.delete_attr(key, "GridJobId")
            for key in plan.detach:
                _detach(txn, key, now)

        await self.ledger.change(change)

    async def _finish(
        self,
        client: ScheddClient,
        plan: grid_plan.Plan,
        jobs: list[tuple[Key, ClassAd]],
        resource: Resource,
    ) -> None:
        """Completed remote jobs: output home, the local jobs completed (a batch at a
        time, once their files are written), and only then the remote jobs let go."""
        if not plan.finish:
            return
        ads = dict(jobs)
        done: list[tuple[Key, list[Any]]] = []
        unwritten: dict[Key, OutputFailure] = {}
        async with client.channel() as ch:
            for key, row in plan.finish.items():
                try:
                    reply = Output.from_wire(
                        await ch.request(Retrieve(grid_plan.rid(row)).to_wire())
                    )
                except wire.RemoteError as e:
                    log.warning(
                        "job %d.%d: cannot fetch the output of %s: %s", *key, grid_plan.rid(row), e
                    )
                    continue
                files = reply.files
                failure = await trio.to_thread.run_sync(write_outputs, ads[key], files)
                if failure is not None:
                    # Not completed without its output: held, and (held) its remote job
                    # is removed on the next pass. Released, it runs again.
                    unwritten[key] = failure
                    continue
                done.append((key, row))
                if len(done) >= BATCH:
                    await self._complete(done, plan, resource)
                    done = []
        await self._complete(done, plan, resource)
        if unwritten:
            await self.ledger.change(_output_holder(unwritten))

    async def _complete(
        self, done: list[tuple[Key, list[Any]]], plan: grid_plan.Plan, resource: Resource
    ) -> None:
        if not done:
            return

        def change(txn: Transaction) -> None:
            for key, row in done:
                _complete(txn, key, row)

        await self.ledger.change(change)
        for key, row in done:
            plan.let_go_remote.append(grid_plan.rid(row))
            log.info("job %d.%d completed on %s as %s", *key, resource.schedd, grid_plan.rid(row))

    async def _clean_remote(self, client: ScheddClient, plan: grid_plan.Plan) -> None:
        if plan.remove_remote:
            reason = f"the job was held or removed on {self.name}"
            await client.act("remove", plan.remove_remote, reason=reason)
        if plan.let_go_remote:
            await client.edit({"LeaveJobInQueue": "false"}, plan.let_go_remote)

    # -- submitting -----------------------------------------------------------------------

    async def _submit(self, client: ScheddClient, keys: list[Key], resource: Resource) -> int:
        if keys and resource not in self.known:
            await trio.to_thread.run_sync(self.known.add, resource)
        done = 0
        batch: list[tuple[Key, dict[str, Any], dict[str, bytes]]] = []
        size = 0
        failed: dict[Key, str] = {}
        for key in keys:
            ad = self.ledger.get(key)
            if ad is None or JobStatus.of(ad) != JobStatus.IDLE or "GridJobId" in ad:
                continue
            try:
                attrs, files = await trio.to_thread.run_sync(
                    grid_job.remote_job, ad, self.name, resource
                )
            except spool.SpoolError as e:
                failed[key] = str(e)
                continue
            own = sum(len(b) for b in files.values())
            if own > BATCH_BYTES:
                failed[key] = f"its input files ({own} bytes) are more than one spool takes"
                continue
            if size + own > BATCH_BYTES:
                done += await self._send(client, batch, resource)
                batch, size = [], 0
            batch.append((key, attrs, files))
            size += own
            if len(batch) >= BATCH or size >= BATCH_BYTES:
                done += await self._send(client, batch, resource)
                batch, size = [], 0
        if batch:
            done += await self._send(client, batch, resource)
        if failed:
            await self.ledger.change(_holder(failed))
        return done

    async def _send(
        self,
        client: ScheddClient,
        batch: list[tuple[Key, dict[str, Any], dict[str, bytes]]],
        resource: Resource,
    ) -> int:
        procs = [attrs for _, attrs, _ in batch]
        req = Submit(procs, cluster={}, spool=[files for _, _, files in batch])
        try:
            async with client.channel() as ch:
                reply = Submitted.from_wire(await ch.request(req.to_wire()))
        except wire.RemoteError as e:
            # One bad job must not stop the rest: halves are tried until it is found,
            # and held with the remote schedd's reason.
            if len(batch) > 1:
                half = len(batch) // 2
                return await self._send(client, batch[:half], resource) + await self._send(
                    client, batch[half:], resource
                )
            why = f"{resource.schedd} refused the job: {e}"
            await self.ledger.change(_holder({batch[0][0]: why}))
            return 0
        cluster = reply.cluster
        ids = {key: f"{cluster}.{proc}" for proc, (key, _, _) in enumerate(batch)}

        def record(txn: Transaction) -> None:
            for key, remote_id in ids.items():
                _record(txn, key, resource, remote_id)

        await self.ledger.change(record)
        log.info("submitted %d jobs to %s as cluster %d", len(batch), resource.schedd, cluster)
        return len(batch)


def _record(txn: Transaction, key: Key, resource: Resource, remote_id: str) -> None:
    """The local job knows its remote job from now on (and its user log says so)."""
    if txn.job(key) is None:
        return
    grid_id = f"{resource} {remote_id}"
    txn.set_attr(key, "GridJobId", grid_id)
    txn.event(EventKind.GRID_SUBMIT, key, resource=str(resource), grid_id=grid_id)


def _mirror(txn: Transaction, key: Key, status: JobStatus, resource: Resource, now: int) -> None:
    ad = txn.job(key)
    if ad is None or JobStatus.of(ad) not in grid_plan.ACTIVE or JobStatus.of(ad) == status:
        return
    before = JobStatus.of(ad)
    t.set_status(txn, key, ad, status, now)
    if status == JobStatus.RUNNING and before == JobStatus.IDLE:
        txn.set_attr(key, "JobCurrentStartDate", now)
        if not isinstance(ad.get("JobStartDate"), int):
            txn.set_attr(key, "JobStartDate", now)
        txn.set_attr(key, "NumJobStarts", t.int_or(ad.get("NumJobStarts"), 0) + 1)
        txn.event(EventKind.EXECUTE, key, host=resource.schedd)
    elif status == JobStatus.IDLE:
        txn.event(EventKind.EVICT, key, reason=f"the job went back to idle on {resource.schedd}")


def _detach(txn: Transaction, key: Key, now: int) -> None:
    """The remote job of a held or removed local job is gone: forget it (a removed job
    then leaves the queue, as it waited to)."""
    ad = txn.job(key)
    if ad is None:
        return
    if "GridJobId" in ad:
        txn.delete_attr(key, "GridJobId")
    if JobStatus.of(ad) == JobStatus.REMOVED:
        t.leave_queue(txn, key, now)


def _complete(txn: Transaction, key: Key, row: list[Any]) -> None:
    """The local job ends as its remote job did (its exit policy applied here)."""
    ad = txn.job(key)
    if ad is None or JobStatus.of(ad) not in grid_plan.ACTIVE:
        return
    for name, value in zip(grid_plan.ROWS, row, strict=True):
        if name in FINAL and isinstance(value, int | float) and not isinstance(value, bool):
            txn.set_attr(key, name, value)
    txn.delete_attr(key, "GridJobId")
    # The remote schedd's values, checked: a strange one must not stop this schedd.
    signal = (
        row[grid_plan.ROWS.index("ExitSignal")]
        if row[grid_plan.ROWS.index("ExitBySignal")] is True
        else None
    )
    code = row[grid_plan.ROWS.index("ExitCode")]
    how = t.Exit(
        code=code if _is_int(code) else None,
        signal=signal if _is_int(signal) else None,
    )
    t.exited(txn, key, how, int(time.time()))


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _holder(failed: dict[Key, str]) -> Callable[[Transaction], None]:
    def change(txn: Transaction) -> None:
        now = int(time.time())
        for key, why in failed.items():
            if txn.job(key) is not None:
                t.hold(txn, key, why, HoldCode.UPLOAD_FILE_ERROR, 0, now, by="gridmanager")

    return change


def _output_holder(failed: dict[Key, OutputFailure]) -> Callable[[Transaction], None]:
    def change(txn: Transaction) -> None:
        now = int(time.time())
        for key, why in failed.items():
            if txn.job(key) is not None:
                code = HoldCode.DOWNLOAD_FILE_ERROR
                t.hold(txn, key, why.reason, code, why.errno, now, by="gridmanager")

    return change
