"""The starter's deferral wait, in-process on trio's MockClock: exact times, no waiting.

The job's DeferralTime is evaluated on the execute machine when the job arrives (the
deferral manual), so `CurrentTime + 60` waits 60 s from arrival; the starter tells its
startd it waits and sends heartbeats meanwhile; a kill during the wait ends the run before
the job starts; a job late by no more than its window starts at once, and one later is
sent back as missed."""

from __future__ import annotations

import signal
from typing import Any

import trio
import trio.testing

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.starter.service import Starter

EPOCH = 1_700_000_000  # what the execute machine's clock reads at virtual time 0


class Frames:
    """The startd's end of the starter's channel: each frame with its virtual time."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, Any]] = []

    async def send(self, frame: Any) -> None:
        self.seen.append((trio.current_time(), frame))


def _starter(frames: Frames) -> Starter:
    starter = Starter(frames, clock=lambda: EPOCH + trio.current_time())  # type: ignore[arg-type]
    starter.active = True  # as while it runs a job
    return starter


def _job(**attrs: Any) -> ClassAd:
    job = ClassAd()
    for name, value in attrs.items():
        job[name] = ExprTree(value) if isinstance(value, str) else value
    return job


def _run(main: Any) -> Any:
    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_current_time_plus_n_waits_n_seconds_from_arrival_with_heartbeats():
    frames = Frames()

    async def main() -> tuple[str | None, float]:
        await trio.sleep(1000)  # the job sat in the queue: its wait starts on arrival
        starter = _starter(frames)
        outcome = await starter.wait_for_deferral(_job(DeferralTime="CurrentTime + 60"), 25)
        return outcome, trio.current_time()

    outcome, ended = _run(main)
    assert (outcome, ended) == (None, 1060.0)
    assert frames.seen == [
        (1000.0, {"waiting": EPOCH + 1060}),
        (1025.0, {"alive": EPOCH + 1025.0}),
        (1050.0, {"alive": EPOCH + 1050.0}),
    ]


def test_a_fixed_deferral_time_waits_until_that_second():
    frames = Frames()

    async def main() -> tuple[str | None, float]:
        outcome = await _starter(frames).wait_for_deferral(_job(DeferralTime=EPOCH + 8), 60)
        return outcome, trio.current_time()

    assert _run(main) == (None, 8.0)
    assert frames.seen == [(0.0, {"waiting": EPOCH + 8})]


def test_a_kill_during_the_wait_ends_the_run_before_the_job_starts():
    frames = Frames()

    async def main() -> str | None:
        starter = _starter(frames)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_kill_at, starter, 30.0)
            return await starter.wait_for_deferral(_job(DeferralTime="CurrentTime + 60"), 100)

    assert _run(main) == "vacated"
    assert frames.seen == [
        (0.0, {"waiting": EPOCH + 60}),
        (30.0, {"vacated": "stopped while waiting for its deferral time"}),
    ]


async def _kill_at(starter: Starter, when: float) -> None:
    await trio.sleep_until(when)
    starter.signalled({"cmd": "signal", "signal": int(signal.SIGTERM), "why": "hold"})


def test_a_job_late_inside_its_window_starts_at_once_and_one_past_it_is_missed():
    frames = Frames()

    async def main() -> list[str | None]:
        starter = _starter(frames)
        inside = _job(DeferralTime="CurrentTime - 2", DeferralWindow=600)
        past = _job(DeferralTime="CurrentTime - 100", DeferralWindow=10)
        return [
            await starter.wait_for_deferral(inside, 5),
            await starter.wait_for_deferral(past, 5),
        ]

    assert _run(main) == [None, "missed"]
    assert frames.seen == [
        (0.0, {"missed": {"late": 100, "deferral_time": EPOCH - 100, "window": 10}}),
    ]


def test_a_deferral_time_that_is_not_a_time_is_missed_with_why():
    frames = Frames()

    async def main() -> str | None:
        return await _starter(frames).wait_for_deferral(_job(DeferralTime='"soon"'), 5)

    assert _run(main) == "missed"
    ((when, frame),) = frames.seen
    assert when == 0.0 and "not a time after 1970" in frame["missed"]["invalid"]
