"""A job's run on a claim stays open while its startd's frames come: no frame within the
job's lease and the run is lost (trio.TooSlowError), counted from the last frame, not
from the run's start; on trio's MockClock, to the second."""

from __future__ import annotations

import trio
import trio.testing

from condorx.classad import ClassAd
from condorx.client.startd import Claim
from condorx.transport import mux
from condorx.transport.packed_ad import PackedAd


def run_with_frames_at(times: list[float], lease: int) -> tuple[float, list[float]]:
    """When the run ended (TooSlowError), and when each frame was noticed."""

    async def main() -> tuple[float, list[float]]:
        stream = mux.Stream(None)  # type: ignore[arg-type]
        # As the claim that brought its first job: the run's frames follow on its stream.
        claim = Claim(stream, "c1", "slot1@x", PackedAd.of(ClassAd()), running=True)
        noticed: list[float] = []

        async def notice(frame: dict) -> None:
            noticed.append(trio.current_time())

        async def startd() -> None:
            for t in times:
                await trio.sleep_until(t)
                stream.deliver({"more": {"alive": True}})
            await trio.sleep_forever()  # silent, its connection still open

        async with trio.open_nursery() as nursery:
            nursery.start_soon(startd)
            try:
                await claim.run(ClassAd(), None, lease, notice)
            except trio.TooSlowError:
                ended = trio.current_time()
            nursery.cancel_scope.cancel()
        return ended, noticed

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_run_is_lost_a_lease_after_its_last_frame():
    ended, noticed = run_with_frames_at([10.0, 35.0, 64.0], lease=30)
    assert noticed == [10.0, 35.0, 64.0]
    assert ended == 94.0


def test_a_run_with_no_frame_at_all_is_lost_a_lease_after_it_began():
    ended, noticed = run_with_frames_at([], lease=30)
    assert (ended, noticed) == (30.0, [])
