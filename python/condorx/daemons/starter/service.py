"""The starter: a process of its own, started by the startd for a claim, that runs the
claim's jobs one after another and dies with the claim.

It speaks wire frames on its standard input and output with its startd:

- `{"cmd": "run", "job", "files", "slot", "scratch", "heartbeat"}`: make the job's
  sandbox and run it; the starter answers `{"started": pid}`, then `{"alive": t}` every
  `heartbeat` seconds, and at last `{"done": {...}}` (how it ended, its usage, its output
  files) or `{"failed": why}` when it could not start.
- `{"cmd": "signal", "signal": N}`: send signal N to the running job's whole process tree
  (suspend, continue, soft and hard kill).

When its standard input closes (the claim is over, or the startd died), it kills any
job it is still running and exits. One starter per claim rather than per job: a claim
runs many short jobs, and a Python start-up per job would cost more than the jobs.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import trio

from condorx import wire
from condorx.daemons.starter import deferral, launch
from condorx.daemons.starter.sandbox import Sandbox


class Starter:
    def __init__(self, ch: wire.Channel) -> None:
        self.ch = ch
        self.proc: launch.Process | None = None
        self.send_lock = trio.Lock()
        self.serial = 0
        # While a job waits for its deferral time: how to stop the wait, and whether a
        # suspend arrived (the job then starts and is suspended at once, as the seed says).
        self.waiting: trio.CancelScope | None = None
        self.suspend_on_start = False

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
                    if req.get("cmd") == "run" and self.proc is None:
                        nursery.start_soon(self.run, req)
                    elif req.get("cmd") == "signal":
                        self._signal(int(req.get("signal", signal.SIGTERM)))
            except wire.WireError:
                pass  # the startd closed our input: the claim is over
            finally:
                if self.proc is not None:
                    self.proc.signal(signal.SIGKILL)
                nursery.cancel_scope.cancel()

    def _signal(self, sig: int) -> None:
        if self.proc is not None:
            self.proc.signal(sig)
        elif self.waiting is not None:
            if sig == signal.SIGSTOP:
                self.suspend_on_start = True
            elif sig == signal.SIGCONT:
                self.suspend_on_start = False
            else:  # a soft or hard kill: the job leaves before it ever starts
                self.waiting.cancel()

    async def _wait_for_deferral(self, job: Any, heartbeat: float) -> str | None:
        """None when the job may start now; else the frame kind that ends the run."""
        d = deferral.of(job)
        if d is None:
            return None
        kind, seconds = deferral.verdict(d, time.time())
        if kind == "missed":
            await self.send(
                {"missed": {"late": int(seconds), "deferral_time": d.time, "window": d.window}}
            )
            return "missed"
        if kind == "wait":
            await self.send({"waiting": d.time})
            with trio.CancelScope() as self.waiting:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._heartbeats, heartbeat)
                    await trio.sleep(seconds)
                    nursery.cancel_scope.cancel()
            self.waiting = None
            if time.time() < d.time:  # cancelled: vacated while it waited
                await self.send({"vacated": "stopped while waiting for its deferral time"})
                return "vacated"
        return None

    async def run(self, req: dict[str, Any]) -> None:
        job = wire.ad_from_wire(req.get("job"), "job ad")
        files = req.get("files")
        self.serial += 1
        box = Sandbox.create(
            job,
            Path(str(req["scratch"])),
            f"dir_{os.getpid()}_{self.serial}",
            files if isinstance(files, dict) else None,
        )
        try:
            heartbeat = float(req.get("heartbeat") or 5)
            if await self._wait_for_deferral(job, heartbeat) is not None:
                return
            try:
                self.proc = box.process(str(req.get("slot", "")), launch.Process)
            except OSError as e:
                await self.send({"failed": f"cannot start {job.get('Cmd')}: {e.strerror}"})
                return
            if self.suspend_on_start:
                self.proc.signal(signal.SIGSTOP)
            await self.send({"started": self.proc.pid})
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._heartbeats, heartbeat)
                outcome = await self.proc.wait()
                nursery.cancel_scope.cancel()
            self.proc = None
            await self.send(
                {"done": {"outcome": outcome.attrs(), "wall": outcome.wall, "files": box.outputs()}}
            )
        finally:
            self.proc = None
            self.waiting = None
            self.suspend_on_start = False
            box.remove()

    async def _heartbeats(self, every: float) -> None:
        while True:
            await trio.sleep(every)
            await self.send({"alive": time.time()})


async def main_async() -> None:
    stream = trio.StapledStream(
        trio.lowlevel.FdStream(os.dup(sys.stdout.fileno())),
        trio.lowlevel.FdStream(os.dup(sys.stdin.fileno())),
    )
    # Nothing else may write to the frame stream: stray prints go to standard error.
    sys.stdout = sys.stderr
    await Starter(wire.Channel(stream)).serve()


def main() -> None:
    trio.run(main_async)


if __name__ == "__main__":
    main()
