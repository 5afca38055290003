"""condor_now's wait for its vacate-jobs' claims, on trio's MockClock: the schedd waits
SCHEDD_NOW_JOB_VACATE_TIMEOUT for every claim to be free, not a moment more; claims
freed meanwhile are kept until the now-job is placed, then given up or taken."""

from __future__ import annotations

import trio
import trio.testing

from condorx.daemons.schedd.now import Coalescing
from condorx.daemons.schedd.shadow import ClaimInfo
from condorx.transport.connection import Address

STARTD = Address.parse("<127.0.0.1:9>")


def claims(n: int) -> list[ClaimInfo]:
    return [ClaimInfo(f"c{i}", STARTD, f"slot1_{i}@x", "alice") for i in range(n)]


def run(main) -> object:
    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def coalescing(n: int) -> tuple[Coalescing, list[ClaimInfo]]:
    """A now-job's coalescing of `n` claims, each marked as going to it."""
    infos = claims(n)
    co = Coalescing((5, 0), infos)
    for info in infos:
        info.coalescing = co
    return co, infos


async def free_at(co: Coalescing, info: ClaimInfo, when: float, given: list) -> None:
    """The claim's vacate-job ends at `when`; `given` gets when its claim was given up
    or taken, and which."""
    await trio.sleep(when)
    taken = await co.give(info)
    given.append((trio.current_time(), taken))


def test_every_claim_free_in_time_places_the_now_job_when_the_last_is_free():
    async def main() -> list:
        co, infos = coalescing(2)
        given: list[tuple[float, bool]] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(free_at, co, infos[0], 3.0, given)
            nursery.start_soon(free_at, co, infos[1], 7.5, given)
            ok = await co.all_free(20.0)
            placed_at = trio.current_time()
            await trio.sleep(1.0)  # the startd coalescing them
            co.end(True)
        return [ok, placed_at, sorted(given), [i.coalescing for i in infos]]

    assert run(main) == [True, 7.5, [(8.5, True), (8.5, True)], [None, None]]


def test_a_claim_not_free_within_the_timeout_fails_the_whole_at_the_timeout():
    async def main() -> list:
        co, infos = coalescing(3)
        given: list[tuple[float, bool]] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(free_at, co, infos[0], 2.0, given)
            nursery.start_soon(free_at, co, infos[1], 19.0, given)
            ok = await co.all_free(20.0)
            failed_at = trio.current_time()
            # The claim not yet free is let go at once: its loop goes on as any claim's.
            let_go = infos[2].coalescing
            co.end(False)
        return [ok, failed_at, let_go, sorted(given), [i.coalescing for i in infos]]

    # The two freed claims are given up (to be released) at the timeout, no sooner.
    assert run(main) == [False, 20.0, None, [(20.0, False), (20.0, False)], [None] * 3]
