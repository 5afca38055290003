"""The starter: a process of its own, started by the startd for a claim, that runs the
claim's jobs one after another and dies with the claim.

It speaks wire frames with its startd on a socket it is given when it is forked (see
`condorx.daemons.startd.starter_forks`):

- `run` (`protocol.starter.StartJob`: job, files, slot, scratch, heartbeat): make the job's
  sandbox and run it; the starter answers `{"started": pid}`, then `{"alive": t}` every
  `heartbeat` seconds, and at last `{"done": {...}}` (how it ended, its usage, its output
  files) or `{"failed": why}` when it could not start.
- `signal` (`SignalJob`: signal N, why): send signal N to the running job's whole
  process tree (suspend, continue, soft and hard kill); `why` (`evict`, `hold`, `remove`)
  says why a job is being stopped, for its JOB_EXIT hook.

The run request may carry the job's hooks (manual 4.4.2.4-6) with the slot's ad:
PREPARE_JOB runs before the job, in its sandbox, and a failure ends the run with
`{"failed": why, "hold_code": 19, "hold_subcode": status}`; UPDATE_JOB_INFO runs after
`updates[0]` seconds and then every `updates[1]`, on the side; JOB_EXIT runs when the job
has ended, and the starter waits for it before it reports.

A run's last frame (`done`, `failed`, `missed`, `vacated`) goes out only once the
starter is idle again: the startd hands the claim's next job over as soon as it reads it,
and that `run` must be taken, not dropped as if it came during the last one. The last
run's scratch directory is emptied after the frame (off the job's critical path), and
the next run waits for that before it takes the directory.

When its socket closes (the claim is over, or the startd died), it kills any
job it is still running and exits. One starter per claim rather than per job: a claim
runs many short jobs, and even a fork per job would cost more than the jobs.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from condorx.classad import ClassAd
from condorx.daemons.core import hooks
from condorx.daemons.starter import deferral, launch, usage
from condorx.daemons.starter.sandbox import Sandbox, StdioError
from condorx.daemons.starter.scratch import Scratch
from condorx.errors import Refused
from condorx.host.accounts import Account, AccountError
from condorx.language.attrs import HoldCode
from condorx.transport import wire
from condorx.transport.protocol.starter import SignalJob, StartJob

log = logging.getLogger("condorx.starter")


class Starter:
    def __init__(self, ch: wire.Channel, clock: Callable[[], float] = time.time) -> None:
        self.ch = ch
        # The execute machine's clock (epoch seconds), a port: deferral is judged by it.
        self.clock = clock
        self.proc: launch.Process | None = None
        self.send_lock = trio.Lock()
        # A run, from the startd's word until its end; before its job has started,
        # `waiting` is the step a kill cuts short (PREPARE_JOB, the deferral wait).
        self.active = False
        self.waiting: trio.CancelScope | None = None
        self.ending = ""  # why the running job is being stopped: evict, hold or remove
        # Suspended by the startd, also before its job has started: the job then starts
        # and is at once suspended, as the deferral manual says of a deferred job.
        self.suspended = False
        # A kill that came before there was a process to signal (the sandbox being made,
        # the starter still reading the run): the job then never starts.
        self.killed: int | None = None
        # The claim's scratch directory, made for its first job and kept for the next.
        self.scratch = Scratch(f"dir_{os.getpid()}")
        # Held by a run until its scratch directory is emptied: the next run waits for it.
        self.turn = trio.Lock()
        # The run has sent its last frame: what is set now belongs to the next run.
        self.over = False

    async def send(self, msg: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.ch.send(msg)

    async def serve(self) -> None:
        async with trio.open_nursery() as nursery:
            try:
                while True:
                    req = await self.ch.receive()
                    if not isinstance(req, dict):
                        continue
                    if req.get("cmd") == StartJob.command and self.active:
                        # The startd sends a run only after the last one's last frame.
                        log.warning("ignored a run that came while a job was running")
                    elif req.get("cmd") == StartJob.command:
                        try:
                            start = StartJob.from_wire(req)
                        except Refused as e:
                            await self.send({"failed": f"cannot run the job: {e}"})
                            continue
                        self.active = True
                        nursery.start_soon(self.run, start)
                    elif req.get("cmd") == SignalJob.command:
                        self.signalled(req)
            except wire.WireError:
                pass  # the startd closed our input: the claim is over
            finally:
                if self.proc is not None:
                    self.proc.signal(signal.SIGKILL)
                nursery.cancel_scope.cancel()
        self.scratch.remove()

    def signalled(self, frame: dict[str, Any]) -> None:
        """The startd's `signal` frame: a suspend, continue, or soft or hard kill."""
        try:
            req = SignalJob.from_wire(frame)
        except Refused as e:
            log.warning("ignored: %s", e)
            return
        if req.why in ("evict", "hold", "remove"):
            self.ending = req.why
        self._signal(req.signal)

    def _signal(self, sig: int) -> None:
        pause = sig in (signal.SIGSTOP, signal.SIGCONT)
        if pause:
            self.suspended = sig == signal.SIGSTOP
        if self.proc is not None:
            self.proc.signal(sig)
        elif not pause and self.active:
            self.killed = sig
            if self.waiting is not None:
                # A soft or hard kill during PREPARE_JOB or the deferral wait: the job never
                # starts.
                self.waiting.cancel()

    async def wait_for_deferral(self, job: Any, heartbeat: float) -> str | None:
        """None when the job may start now; else the frame kind that ends the run."""
        arrived = self.clock()
        d = deferral.of(job, arrived)
        if d is None:
            return None
        if isinstance(d, str):
            await self._last({"missed": {"invalid": d}})
            return "missed"
        kind, seconds = deferral.verdict(d, arrived)
        if kind == "missed":
            await self._last(
                {"missed": {"late": int(seconds), "deferral_time": d.time, "window": d.window}}
            )
            return "missed"
        if kind == "wait":
            await self.send({"waiting": d.time})
            with trio.CancelScope() as self.waiting:
                if self.killed is not None:  # came while the startd was told we wait
                    self.waiting.cancel()
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._heartbeats, heartbeat)
                    await trio.sleep(seconds)
                    nursery.cancel_scope.cancel()
            stopped, self.waiting = self.waiting.cancel_called, None
            if stopped:  # held, removed or vacated while it waited (even in its last second)
                await self._last({"vacated": "stopped while waiting for its deferral time"})
                return "vacated"
        return None

    async def run(self, req: StartJob) -> None:
        async with self.turn:  # after the last run's scratch directory is emptied
            self.over = False
            try:
                await self._run(req)
            finally:
                if not self.over:  # cut off before its last frame: no next run can have come
                    self._idle()

    def _idle(self) -> None:
        """No run any more: what a run set is cleared, for the next."""
        self.active = self.suspended = False
        self.proc = self.waiting = self.killed = None
        self.ending = ""

    async def _last(self, frame: dict[str, Any]) -> None:
        """The run's last frame, sent once the starter is idle again: the startd may send
        the claim's next job the moment it reads this, and a starter that still counted
        this run as its own dropped that job (the claim then ran nothing, for ever), or
        cleared a kill or suspend sent for it."""
        self._idle()
        self.over = True
        await self.send(frame)

    async def _run(self, req: StartJob) -> None:
        job = wire.ad_from_packed(req.job, "job ad")
        files = req.files
        job_hooks = {h.name: h for h in map(hooks.Hook.from_wire, req.hooks or [])}
        slot_ad = wire.ad_from_wire(req.slot_ad or {}, "slot ad")
        try:
            account = Account.lookup(req.user)
        except AccountError as e:
            await self._last({"failed": f"cannot run the job: {e}"})
            return
        path = self.scratch.take(Path(req.scratch), account)
        try:
            box = Sandbox.create(job, path, files if isinstance(files, dict) else None, account)
            prepare = job_hooks.get("PREPARE_JOB")
            if prepare is not None and not await self._prepare(prepare, job, slot_ad, box):
                return
            heartbeat = req.heartbeat or 5.0
            if await self.wait_for_deferral(job, heartbeat) is not None:
                return
            if self.killed is not None:
                await self._last({"vacated": "stopped before it started"})
                return
            try:
                slot_name = req.slot
                stopped = self.suspended
                env = {str(k): str(v) for k, v in (req.env or {}).items()}
                proc = box.process(slot_name, launch.Process, stopped=stopped, env=env)
            except StdioError as e:
                why = f"cannot start {job.get('Cmd')}: {e.strerror}"
                await self._last({"failed": why, "hold_code": e.code, "hold_subcode": e.errno})
                return
            except OSError as e:
                await self._last({"failed": f"cannot start {job.get('Cmd')}: {e.strerror}"})
                return
            if stopped:
                # Signals go to the job only once its own SIGSTOP has taken effect: a
                # continue sent before that would be undone by it.
                await proc.until_stopped()
                if not self.suspended:  # continued meanwhile
                    proc.signal(signal.SIGCONT)
            self.proc = proc
            if self.killed is not None:  # came while its SIGSTOP took effect
                proc.signal(self.killed)
                proc.signal(signal.SIGCONT)
            await self.send({"started": self.proc.pid, **box.places})
            started, proc = self.clock(), self.proc
            updates = req.updates or [8, 300]
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._heartbeats, heartbeat)
                update = job_hooks.get("UPDATE_JOB_INFO")
                if update is not None:
                    nursery.start_soon(
                        self._updates, update, job, proc, started, updates, box.account
                    )
                outcome = await proc.wait()
                nursery.cancel_scope.cancel()
            self.proc = None
            exit_hook = job_hooks.get("JOB_EXIT")
            if exit_hook is not None:
                await self._job_exit(exit_hook, job, proc, started, outcome, box)
            done = {"outcome": outcome.attrs(), "wall": outcome.wall, "files": box.outputs()}
            failure = box.output_failure()
            if failure is not None:  # held, the files it made sent home all the same
                code = int(HoldCode.DOWNLOAD_FILE_ERROR)
                done.update(failed=failure, hold_code=code, hold_subcode=errno.ENOENT)
            await self._last({"done": done})
        finally:
            self.proc = None
            self.scratch.clear()

    async def _prepare(self, hook: hooks.Hook, job: ClassAd, slot: ClassAd, box: Sandbox) -> bool:
        """PREPARE_JOB in the job's sandbox; False (the run reported as failed) unless it
        exits 0."""
        # Like the deferral wait: a kill now ends the run before the job starts, and a
        # suspend starts it suspended.
        res: hooks.Result | None = None
        with trio.CancelScope() as self.waiting:
            if self.killed is not None:  # came while the sandbox was being made
                self.waiting.cancel()
            res = await hooks.run(
                hook, (), hooks.ads_text(job, slot), str(box.scratch), box.account
            )
        self.waiting = None
        if res is None:  # stopped (vacated, removed) before the job ever started
            await self._last({"vacated": f"stopped while its {hook.label} hook ran"})
            return False
        if res.ok:
            return True
        why = res.error or f"exited with status {res.status}"
        await self._last(
            {
                "failed": f"{hook.label} failed: {why}",
                "hold_code": int(HoldCode.HOOK_PREPARE_JOB_FAILURE),
                "hold_subcode": res.status if res.status is not None else 0,
            }
        )
        return False

    def _running_ad(self, job: ClassAd, proc: launch.Process, started: float) -> ClassAd:
        """The job ad with what its process tree is doing now (manual 4.4.2.5)."""
        ad = job.copy()
        ad.update(usage.of_session(proc.pid).attrs())
        ad["JobState"] = "Suspended" if self.suspended else "Running"
        ad["JobPid"] = proc.pid
        ad["JobStartDate"] = int(started)
        return ad

    async def _updates(
        self,
        hook: hooks.Hook,
        job: ClassAd,
        proc: launch.Process,
        started: float,
        every: list[Any],
        account: Account | None,
    ) -> None:
        """UPDATE_JOB_INFO after the initial interval, then every interval. Advisory: the
        job goes on whatever the hook does; a slow hook is not run twice at once."""
        await trio.sleep(float(every[0]))
        async with trio.open_nursery() as nursery:
            running = False

            async def once() -> None:
                nonlocal running
                running = True
                try:
                    ad = self._running_ad(job, proc, started)
                    await hooks.run(hook, (), hooks.ads_text(ad), account=account)
                finally:
                    running = False

            while True:
                if not running:
                    nursery.start_soon(once)
                await trio.sleep(max(1.0, float(every[1])))

    async def _job_exit(
        self,
        hook: hooks.Hook,
        job: ClassAd,
        proc: launch.Process,
        started: float,
        outcome: launch.Outcome,
        box: Sandbox,
    ) -> None:
        """JOB_EXIT with how the job ended; waited for, before the output goes back."""
        how = self.ending or "exit"
        ad = self._running_ad(job, proc, started)
        ad.update(outcome.attrs())
        ad["NumPids"] = 0
        ad["JobDuration"] = round(outcome.wall, 3)
        ad["ExitReason"] = _exit_reason(how, outcome)
        await hooks.run(hook, (how,), hooks.ads_text(ad), str(box.scratch), box.account)

    async def _heartbeats(self, every: float) -> None:
        while True:
            await trio.sleep(every)
            await self.send({"alive": self.clock()})


def _exit_reason(how: str, outcome: launch.Outcome) -> str:
    ended = (
        f"died on signal {outcome.signal}"
        if outcome.signal is not None
        else f"exited normally with status {outcome.exit_code}"
    )
    stopped = {"evict": "was evicted", "hold": "was put on hold", "remove": "was removed"}
    return f"The job {stopped[how]} and {ended}" if how in stopped else f"The job {ended}"


def serve_socket(sock: socket.socket, log_file: str | None) -> None:
    """A starter's life, in the process forked for it: frames with its startd on `sock`
    until the startd closes it."""
    fmt = "%(asctime)s %(levelname)s %(name)s %(message)s"
    try:
        logging.basicConfig(level=logging.INFO, format=fmt, filename=log_file, force=True)
    except OSError:
        logging.basicConfig(level=logging.INFO, format=fmt, force=True)  # standard error

    async def serve() -> None:
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(sock))
        await Starter(wire.StreamChannel(stream)).serve()

    trio.run(serve)
