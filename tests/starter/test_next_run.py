"""A claim's next job, handed to the starter the moment its last job's end is read: the
startd relays the end to the schedd, the schedd sends the claim's next job at once, and
that `run` can reach the starter before the task of the run that just ended has gone on
from sending its last frame. The starter once still counted that run as its own then and
dropped the new `run` without a word: the startd and the schedd waited for ever on a job
that never started (a DAG node whose children were never submitted, 1 run in some
hundreds of a DAG test on a loaded machine).

In-process and deterministic: the startd's end of the channel puts the next frames in
the starter's input as the last frame of a run is sent, and lets every other task go as
far as it can before that send returns (the widest the window ever is)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import trio
import trio.testing

from condorx.daemons.starter.service import Starter
from condorx.transport import wire

_LAST = ("done", "failed", "missed", "vacated")


def run_request(scratch: Path, out: Path) -> dict[str, Any]:
    job = {
        "Cmd": "/bin/sh",
        "Arguments": f"-c 'echo ran >> {out}'",
        "Iwd": str(scratch),
        "TransferExecutable": False,
    }
    packed = wire.pack_ad(wire.ad_from_wire(job))
    return {"cmd": "run", "job": packed, "scratch": str(scratch), "slot": "slot1", "heartbeat": 60}


class Startd(wire.Channel):
    """The startd's end of the starter's channel: at the first run's last frame, `after`
    goes into the starter's input before the starter's send returns."""

    def __init__(self, after: list[dict[str, Any]]) -> None:
        self.inbox_in, self.inbox = trio.open_memory_channel[Any](16)
        self.after = after
        self.frames: list[dict[str, Any]] = []
        self.runs_ended = 0
        self.first_ended = trio.Event()
        self.both_ended = trio.Event()

    async def send(self, obj: Any) -> None:
        self.frames.append(obj)
        if not _is_last(obj):
            return
        self.runs_ended += 1
        if self.runs_ended == 2:
            self.both_ended.set()
        if self.runs_ended == 1:
            for frame in self.after:
                self.inbox_in.send_nowait(frame)
            # The starter reads them while the ended run's task is still in this send.
            await trio.testing.wait_all_tasks_blocked()
            self.first_ended.set()

    async def receive(self) -> Any:
        try:
            return await self.inbox.receive()
        except trio.EndOfChannel:
            raise wire.Closed("the startd closed the claim") from None

    async def aclose(self) -> None:
        await self.inbox_in.aclose()


def serve_two(first: dict[str, Any], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The starter's frames for `first` and then `after`, each frame sent as the first
    run ends; the second run's frames are looked at once nothing can move any more."""

    async def main() -> list[dict[str, Any]]:
        startd = Startd(after)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(Starter(startd).serve)
            startd.inbox_in.send_nowait(first)
            await startd.first_ended.wait()
            await trio.testing.wait_all_tasks_blocked()
            # By now the second run has started its job, or ended: nothing else is left
            # for it to wait on. A run that was dropped has sent nothing at all.
            first_end = next(i for i, f in enumerate(startd.frames) if _is_last(f))
            assert startd.frames[first_end + 1 :], "the next run was dropped"
            with trio.fail_after(30):  # a guard only: the second job exits at once
                await startd.both_ended.wait()
            await startd.aclose()
        return startd.frames

    return trio.run(main)


def _is_last(frame: dict[str, Any]) -> bool:
    return any(k in frame for k in _LAST)


def test_a_run_sent_as_the_last_run_ends_is_run(tmp_path: Path) -> None:
    out = tmp_path / "ran"
    frames = serve_two(run_request(tmp_path, out), [run_request(tmp_path, out)])
    kinds = [next(iter(f)) for f in frames if "alive" not in f]
    assert kinds == ["started", "done", "started", "done"]
    assert out.read_text().split() == ["ran", "ran"]


def test_a_kill_sent_with_that_run_is_kept(tmp_path: Path) -> None:
    # The kill for the next job comes while the last run is still tidying up: it was
    # cleared with the last run's state, and the job ran.
    out = tmp_path / "ran"
    kill = {"cmd": "signal", "signal": int(signal.SIGTERM), "why": "evict"}
    frames = serve_two(run_request(tmp_path, out), [run_request(tmp_path, out), kill])
    kinds = [next(iter(f)) for f in frames if "alive" not in f]
    assert kinds == ["started", "done", "vacated"]
    assert frames[-1] == {"vacated": "stopped before it started"}
    assert out.read_text().split() == ["ran"]  # only the first job ran
