"""The starter in the test's process, spoken to over a memory stream as the startd speaks
to it over a pipe: a kill that comes before the job has a process (the startd's policy
vacating a claim while its starter is still starting) is kept, and the job never starts.
It was once dropped, and the job ran on until KILL, long after the slot was vacated."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import trio
import trio.testing

from condorx import wire
from condorx.daemons.starter.service import Starter


def run_request(scratch: Path, pidfile: Path) -> dict[str, Any]:
    job = {
        "Cmd": "/bin/sh",
        "Arguments": f"-c 'echo $$ > {pidfile}; exec sleep 600'",
        "Iwd": str(scratch),
        "TransferExecutable": False,
    }
    return {"cmd": "run", "job": job, "scratch": str(scratch), "slot": "slot1", "heartbeat": 1}


def test_a_kill_sent_with_the_run_is_not_lost(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"

    async def main() -> list[dict[str, Any]]:
        ours, theirs = trio.testing.memory_stream_pair()
        startd = wire.Channel(ours)
        frames = []
        async with trio.open_nursery() as nursery:
            # Both frames wait in the stream before the starter reads either, as they wait
            # in the pipe of a starter that is still importing.
            await startd.send(run_request(tmp_path, pidfile))
            await startd.send({"cmd": "signal", "signal": int(signal.SIGTERM), "why": "evict"})
            nursery.start_soon(Starter(wire.Channel(theirs)).serve)
            with trio.fail_after(30):
                while not frames or not ({"vacated", "done", "failed"} & frames[-1].keys()):
                    frames.append(await startd.receive())
            nursery.cancel_scope.cancel()
        return frames

    frames = trio.run(main)
    assert frames == [{"vacated": "stopped before it started"}]
    assert not pidfile.exists()  # the job never ran
