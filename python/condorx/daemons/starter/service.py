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
from condorx.daemons.starter import launch
from condorx.daemons.starter.sandbox import Sandbox


class Starter:
    def __init__(self, ch: wire.Channel) -> None:
        self.ch = ch
        self.proc: launch.Process | None = None
        self.send_lock = trio.Lock()
        self.serial = 0

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
                    elif req.get("cmd") == "signal" and self.proc is not None:
                        self.proc.signal(int(req.get("signal", signal.SIGTERM)))
            except wire.WireError:
                pass  # the startd closed our input: the claim is over
            finally:
                if self.proc is not None:
                    self.proc.signal(signal.SIGKILL)
                nursery.cancel_scope.cancel()

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
            try:
                self.proc = box.process(str(req.get("slot", "")), launch.Process)
            except OSError as e:
                await self.send({"failed": f"cannot start {job.get('Cmd')}: {e.strerror}"})
                return
            await self.send({"started": self.proc.pid})
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._heartbeats, float(req.get("heartbeat") or 5))
                outcome = await self.proc.wait()
                nursery.cancel_scope.cancel()
            self.proc = None
            await self.send(
                {"done": {"outcome": outcome.attrs(), "wall": outcome.wall, "files": box.outputs()}}
            )
        finally:
            self.proc = None
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
