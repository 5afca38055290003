"""The schedd's requests for a negotiation cycle after submissions, on trio's MockClock:
one at a time, at most one a second, and the requests that come while one is under way
make one more after it, not one each."""

from __future__ import annotations

import trio
import trio.testing

from condorx.daemons.schedd import advertise


def run(monkeypatch, script) -> list[float]:
    """When each reschedule began (each takes 0.3 s), for `script(requests, nursery)`."""
    began: list[float] = []

    async def reschedule(cfg, published) -> None:
        began.append(trio.current_time())
        await trio.sleep(0.3)

    monkeypatch.setattr(advertise, "reschedule", reschedule)

    async def main() -> None:
        requests = advertise.Reschedules(None, lambda: [])  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            await script(requests, nursery)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return began


def test_requests_before_a_cycle_starts_are_one(monkeypatch):
    async def script(requests, nursery):
        for _ in range(100):
            requests.request(nursery)

    assert run(monkeypatch, script) == [0.0]


def test_requests_during_one_make_one_more_a_second_after_it_began(monkeypatch):
    async def script(requests, nursery):
        requests.request(nursery)
        await trio.sleep(0.1)
        for _ in range(50):
            requests.request(nursery)
        await trio.sleep(2.0)
        requests.request(nursery)  # long after: at once

    assert run(monkeypatch, script) == [0.0, 1.0, 2.1]
