"""The starter in the test's process, spoken to over a memory stream as the startd speaks
to it over a pipe: a kill that comes before the job has a process (the startd's policy
vacating a claim while its starter is still starting) is kept, and the job never starts.
It was once dropped, and the job ran on until KILL, long after the slot was vacated."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import trio
import trio.testing

from condorx.daemons.starter.service import Starter
from condorx.transport import wire


def run_request(scratch: Path, pidfile: Path, **job_attrs: Any) -> dict[str, Any]:
    job = {
        "Cmd": "/bin/sh",
        "Arguments": f"-c 'echo $$ > {pidfile}; exec sleep 600'",
        "Iwd": str(scratch),
        "TransferExecutable": False,
        **job_attrs,
    }
    packed = wire.pack_ad(wire.ad_from_wire(job))
    return {"cmd": "run", "job": packed, "scratch": str(scratch), "slot": "slot1", "heartbeat": 1}


def kill_with_the_run(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The starter's frames, up to its last, for a run followed at once by a kill."""

    async def main() -> list[dict[str, Any]]:
        ours, theirs = trio.testing.memory_stream_pair()
        startd = wire.StreamChannel(ours)
        frames = []
        async with trio.open_nursery() as nursery:
            # Both frames wait in the stream before the starter reads either, as they wait
            # in the pipe of a starter that is still importing.
            await startd.send(request)
            await startd.send({"cmd": "signal", "signal": int(signal.SIGTERM), "why": "evict"})
            nursery.start_soon(Starter(wire.StreamChannel(theirs)).serve)
            with trio.fail_after(30):
                while not frames or not ({"vacated", "done", "failed"} & frames[-1].keys()):
                    frames.append(await startd.receive())
            nursery.cancel_scope.cancel()
        return frames

    return trio.run(main)


def test_a_kill_sent_with_the_run_is_not_lost(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    frames = kill_with_the_run(run_request(tmp_path, pidfile))
    assert frames == [{"vacated": "stopped before it started"}]
    assert not pidfile.exists()  # the job never ran


def test_a_kill_before_the_deferral_wait_ends_it_at_once(tmp_path: Path) -> None:
    # The kill is read while the starter tells the startd that the job waits, before the
    # wait begins: it once slept out the whole wait (here 10 minutes) with the slot busy.
    pidfile = tmp_path / "pid"
    due = int(time.time()) + 600
    frames = kill_with_the_run(run_request(tmp_path, pidfile, DeferralTime=due))
    assert frames == [
        {"waiting": due},
        {"vacated": "stopped while waiting for its deferral time"},
    ]
    assert not pidfile.exists()
