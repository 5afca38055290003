"""When the negotiator's cycles start, on trio's MockClock: every NEGOTIATOR_INTERVAL,
and at once when a schedd asks (condor_reschedule); with NEGOTIATOR_MIN_INTERVAL or
NEGOTIATOR_CYCLE_DELAY configured, as HTCondor's negotiator spaces them (a cycle starts
no sooner than MIN_INTERVAL after the last one started, nor CYCLE_DELAY after it ended).
condorx sets neither by default: a slot handed out is held until its startd advertises
again, which is what HTCondor's delay is for."""

from __future__ import annotations

import trio
import trio.testing

from condorx.daemons.negotiator.service import Negotiator
from condorx.language.config import Config


class Timed(Negotiator):
    """The negotiator's own loop over cycles that only take their time."""

    def __init__(self, cfg: Config, takes: float) -> None:
        super().__init__(cfg)
        self.takes = takes
        self.began: list[float] = []

    async def cycle(self) -> None:
        self.began.append(trio.current_time())
        await trio.sleep(self.takes)


def run(tmp_path, knobs: str, asks: list[float], takes: float = 1.0, until: float = 25.0):
    cfg = Config.from_text(f"LOCAL_DIR = {tmp_path}\nNEGOTIATOR_INTERVAL = 10\n{knobs}")
    negotiator = Timed(cfg, takes)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(negotiator.loop)
            for t in asks:
                await trio.sleep_until(t)
                negotiator.wake.set()  # what Reschedule does
            await trio.sleep_until(until)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return negotiator.began


def test_a_reschedule_starts_a_cycle_at_once_by_default(tmp_path):
    # Each cycle takes 1 s, and the next comes NEGOTIATOR_INTERVAL after one ends: asked
    # at 3 and at 5, cycles start at 3 and at 5, and the next at 6 + 10.
    assert run(tmp_path, "", [3.0, 5.0]) == [0.0, 3.0, 5.0, 16.0]


def test_min_interval_spaces_the_starts(tmp_path):
    began = run(tmp_path, "NEGOTIATOR_MIN_INTERVAL = 4\n", [2.0])
    assert began == [0.0, 4.0, 15.0]


def test_cycle_delay_waits_after_the_end(tmp_path):
    began = run(tmp_path, "NEGOTIATOR_CYCLE_DELAY = 3\n", [1.5], takes=1.0)
    assert began == [0.0, 4.0, 15.0]
