"""The schedd's flock advertising on trio's MockClock, against two real collectors on
loopback: a submitter with idle jobs that no negotiator serves reaches one pool further
each time two SCHEDD_INTERVALs pass, and is advertised to every pool it reaches, with the
private ad that carries its negotiator's token."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import trio
import trio.testing

from condorx.daemons.collector.service import Collector
from condorx.daemons.core.server import Server
from condorx.daemons.schedd.flock_ads import FlockAds
from condorx.daemons.schedd.flocking import Flocking
from condorx.daemons.schedd.identity import Identity
from condorx.language.config import Config
from condorx.transport import locate, security, tokens


def _config(tmp_path: Path, flock_to: str = "") -> Config:
    return Config.from_text(
        f"LOCAL_DIR = {tmp_path}\nSCHEDD_INTERVAL = 10\nTRUST_DOMAIN = here\n"
        f"FLOCK_TO = {flock_to}\n"
    )


async def _collector(nursery: trio.Nursery, cfg: Config) -> tuple[Collector, str]:
    collector = Collector(cfg)
    key = security.ensure_pool_key(locate.pool_key_file(cfg))
    server = Server("collector", collector.handlers(), key)
    collector.authorized = server.authorized
    port = await nursery.start(server.serve_tcp, "127.0.0.1", 0)
    return collector, f"127.0.0.1:{port}"


def _seen(collector: Collector) -> list[tuple[str, object]]:
    return sorted(
        (kind, e.ad.get("IdleJobs") if kind == "submitter" else e.ad.get("SubmitterTag"))
        for kind in ("submitter", "submitterprivate")
        for e in collector.entries(kind)
    )


def test_an_unserved_submitter_reaches_a_pool_further_every_two_intervals(tmp_path):
    seen: dict[object, list[object]] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            first, a = await _collector(nursery, _config(tmp_path))
            second, b = await _collector(nursery, _config(tmp_path))
            cfg = _config(tmp_path, f"{a}, {b}")
            me = Identity("schedd@here", "here", 10, "<127.0.0.1:1>")
            flocking = Flocking(cfg)
            ads = FlockAds(cfg, me, flocking, lambda: ({"u": 3}, Counter()))
            nursery.start_soon(ads.run)
            for t in (25, 35, 55, 65):
                await trio.sleep_until(t)
                seen[t] = [flocking.reach["u"].level, _seen(first), _seen(second)]
            token = first.entries("submitterprivate")[0].ad.get("Capability")
            _, payload = tokens.decoded(str(token))
            seen["token"] = [payload["sub"], payload["scope"], payload["exp"] - payload["iat"]]
            seen["pools"] = [a, b]
            nursery.cancel_scope.cancel()

    # The clock jumps once every task has waited a quarter second of real time: the
    # loopback updates between the rounds take far less.
    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0.25))
    a, b = seen["pools"]
    in_a = [("submitter", 3), ("submitterprivate", a)]
    in_b = [("submitter", 3), ("submitterprivate", b)]
    # Rounds at 0, 10, 20, ...: at 20, two intervals unserved are not yet past; at 30 they
    # are, and at 60 again.
    assert seen[25] == [0, [], []]
    assert seen[35] == [1, in_a, []]
    assert seen[55] == [1, in_a, []]
    assert seen[65] == [2, in_a, in_b]  # still advertised to the first pool too
    # Its negotiator's token: the pool's identity, NEGOTIATOR alone, for two intervals
    # (at least a minute).
    assert seen["token"] == ["condor@here", "condor:/NEGOTIATOR", 60]
