"""The negotiator never dies of a peer: a startd or schedd that refuses, fails, says
nothing or speaks garbage costs a log line and that peer's part of the cycle.

The peers here are servers on loopback in the test's own process (the daemons' own
`Server` where they answer in the protocol, bare sockets where they do not), and a
negotiator driven a cycle at a time; the last test uses real daemons."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from condorx import _core
from condorx.classad import ClassAd
from condorx.client.collector import CollectorClient
from condorx.daemons.core import batch
from condorx.daemons.core.server import Peer, Server
from condorx.daemons.negotiator.service import Negotiator
from condorx.errors import Refused
from condorx.testing.pool import QUICK_POOL as POOL
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.pool import wait_for
from condorx.transport import locate, security, wire
from condorx.transport.connection import daemon_credentials
from condorx.transport.protocol.collector import QueryAds
from condorx.transport.protocol.message import Count, Done, Each, Message, Reply
from condorx.transport.protocol.schedd.peers import Matched, MatchedMany
from condorx.transport.protocol.schedd.query import Autoclusters
from condorx.transport.protocol.startd import Match, Matches, MatchTaken
from condorx.transport.protocol.table import COMMANDS, Command, Permission

Handler = Callable[[Peer, Any, wire.Channel], Awaitable[Reply]]
# Each command's reply type, as the real daemons answer it.
REPLIES = {c.request: c.reply for commands in COMMANDS.values() for c in commands}


@pytest.fixture
def cfg_pool(pool: Pool) -> Pool:
    """A pool's configuration (and key) only; each test brings its own peers."""
    with open(pool.config_file, "a") as f:
        f.write("NEGOTIATOR_INTERVAL = 1\nNEGOTIATOR_TIMEOUT = 1\n")
    pool.reload()
    return pool


async def serve(nursery: trio.Nursery, pool: Pool, handlers: dict[type[Message], Handler]) -> str:
    """A peer that speaks the protocol, with these commands (and no others)."""
    key = security.ensure_pool_key(locate.pool_key_file(pool.cfg))
    handlers = {**handlers, **batches(handlers)}
    commands = {kind.command: Command(kind, Permission.READ, REPLIES[kind]) for kind in handlers}
    server = Server("peer", handlers, key, commands=commands)
    port = await nursery.start(server.serve_tcp, "127.0.0.1", 0)
    return f"<127.0.0.1:{port}>"


def batches(handlers: dict[type[Message], Handler]) -> dict[type[Message], Handler]:
    """The batch commands the negotiator sends, served item by item as the daemons serve
    them (`condorx.daemons.core.batch`), by the fake's single-match handlers."""
    out: dict[type[Message], Handler] = {}
    if Match in handlers:
        match = handlers[Match]

        async def matches(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
            return Each(await batch.each(peer, req.items, Match, match, ch))

        out[Matches] = matches
    if Matched in handlers:
        matched = handlers[Matched]

        async def many(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
            return Each(await batch.each(peer, req.items, Matched, matched, ch))

        out[MatchedMany] = many
    return out


async def serve_raw(nursery: trio.Nursery, handler: Callable[[trio.SocketStream], Any]) -> str:
    """A peer that does not speak the protocol: `handler` has each connection."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    nursery.start_soon(trio.serve_listeners, handler, listeners)
    return f"<127.0.0.1:{listeners[0].socket.getsockname()[1]}>"


def answering(reply: Reply) -> Handler:
    async def handler(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
        return reply

    return handler


def refusing(kind: str, message: str) -> Handler:
    async def handler(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
        raise Refused(kind, message)

    return handler


def streaming(rows: Callable[[Any], list[Any]]) -> Handler:
    """A query's streamed answer: `rows(request)` as one chunk."""

    async def handler(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
        chunk = rows(req)
        await ch.send({"more": chunk})
        return Count(len(chunk))

    return handler


async def hanging(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
    """Takes the request and never answers."""
    await trio.sleep_forever()


async def silent(stream: trio.SocketStream) -> None:
    await trio.sleep_forever()


async def garbage(stream: trio.SocketStream) -> None:
    await stream.send_all(b"\xff\xff\xff\xff")  # a frame of 4 GiB: refused unread
    await trio.sleep_forever()


JOB = ClassAd({"ClusterId": 1, "ProcId": 0, "Owner": "alice"})


async def hand_out(negotiator: Negotiator, job: ClassAd, slot: ClassAd, schedd: str) -> int:
    """One match of alice's, handed out on its own; 1 when both peers took it."""
    return await negotiator.handout.deliver([negotiator.offer(job, slot, schedd, "alice@s", None)])


def slot_ad(address: str, name: str = "slot1@peer") -> ClassAd:
    return ClassAd(
        {"Name": name, "MyAddress": address, "State": "Unclaimed", "UpdateSequenceNumber": 1}
    )


# Each case: how to stand up the slot's startd and the job's schedd; what the log says.
Peers = Callable[[trio.Nursery, Pool, Path], Awaitable[tuple[str, str]]]


async def startd_refuses(n: trio.Nursery, pool: Pool, tmp: Path) -> tuple[str, str]:
    busy = refusing("busy", "slot1@peer is Claimed/Busy, not Unclaimed")
    return await serve(n, pool, {Match: busy}), await serve(n, pool, {})


async def schedd_refuses(n: trio.Nursery, pool: Pool, tmp: Path) -> tuple[str, str]:
    startd = await serve(n, pool, {Match: answering(MatchTaken("slot1@peer"))})
    return startd, await serve(n, pool, {Matched: refusing("bad-request", "no job 1.0")})


async def startd_gone(n: trio.Nursery, pool: Pool, tmp: Path) -> tuple[str, str]:
    return f"unix:{tmp / 'nobody-listens.sock'}", await serve(n, pool, {})


async def startd_bad_address(n: trio.Nursery, pool: Pool, tmp: Path) -> tuple[str, str]:
    return "<not an address>", await serve(n, pool, {})


async def startd_silent(n: trio.Nursery, pool: Pool, tmp: Path) -> tuple[str, str]:
    return await serve_raw(n, silent), await serve(n, pool, {})


async def startd_garbage(n: trio.Nursery, pool: Pool, tmp: Path) -> tuple[str, str]:
    return await serve_raw(n, garbage), await serve(n, pool, {})


async def schedd_silent(n: trio.Nursery, pool: Pool, tmp: Path) -> tuple[str, str]:
    startd = await serve(n, pool, {Match: answering(MatchTaken("slot1@peer"))})
    return startd, await serve_raw(n, silent)


@pytest.mark.parametrize(
    ("peers", "said"),
    [
        (startd_refuses, "not Unclaimed"),
        (schedd_refuses, "no job 1.0"),
        (startd_gone, "No such file"),
        (startd_bad_address, "bad daemon address"),
        (startd_silent, "TooSlowError"),
        (startd_garbage, "exceeds the limit"),
        (schedd_silent, "TooSlowError"),
    ],
    ids=lambda p: getattr(p, "__name__", None),
)
def test_a_failed_hand_out_is_logged_and_skipped(cfg_pool, tmp_path, caplog, peers, said):
    caplog.set_level(logging.INFO, logger="condorx.negotiator")
    negotiator = Negotiator(cfg_pool.cfg)

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            startd, schedd = await peers(nursery, cfg_pool, tmp_path)
            slot = slot_ad(startd)
            with trio.fail_after(60):  # far beyond NEGOTIATOR_TIMEOUT: a hang is a failure
                sent = await hand_out(negotiator, JOB, slot, schedd)
            assert negotiator.handed_out.unheld([slot]) == []  # not offered again yet
            nursery.cancel_scope.cancel()
        return sent

    assert trio.run(main) == 0
    assert "match of alice@s with slot1@peer not made" in caplog.text
    assert said in caplog.text


def test_a_hand_out_both_peers_take_is_made(cfg_pool, tmp_path):
    """The fakes above are fair: the same peers, agreeing, make the match."""
    negotiator = Negotiator(cfg_pool.cfg)
    told: list[Matched] = []

    async def matched(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
        told.append(req)
        return Done()

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            startd = await serve(nursery, cfg_pool, {Match: answering(MatchTaken("slot1@peer"))})
            schedd = await serve(nursery, cfg_pool, {Matched: matched})
            sent = await hand_out(negotiator, JOB, slot_ad(startd), schedd)
            nursery.cancel_scope.cancel()
        return sent

    assert trio.run(main) == 1
    assert [(r.job, r.slot, r.user) for r in told] == [("1.0", "slot1@peer", "alice")]


def test_a_cycles_matches_go_in_one_request_to_each_daemon_and_refusals_cost_one_each(
    cfg_pool, caplog
):
    """Six matches on two startds for two schedds: one `Matches` to each startd and one
    `MatchedMany` to each schedd, over one connection each, though the hand-out runs in
    chunks of two; the startd's refusal of one slot and a schedd's of one job cost those
    two matches only."""
    caplog.set_level(logging.INFO, logger="condorx.negotiator")
    with open(cfg_pool.config_file, "a") as f:
        f.write("NEGOTIATOR_HANDOUT_CHUNK = 2\n")
    cfg_pool.reload()
    negotiator = Negotiator(cfg_pool.cfg)
    seen: dict[str, list[Any]] = {}

    def recording(name: str, reply: Callable[[Any], Reply]) -> Handler:
        async def handler(peer: Peer, req: Any, ch: wire.Channel) -> Reply:
            seen.setdefault(name, []).append((id(peer), req))
            return reply(req)

        return handler

    def take(req: Match) -> Reply:
        if req.slot == "slot2@a":
            raise Refused("busy", "slot2@a is Claimed/Busy, not Unclaimed")
        return MatchTaken(req.slot)

    def note(req: Matched) -> Reply:
        if req.job == "1.4":
            raise Refused("not-found", "no job 1.4")
        return Done()

    async def main() -> int:
        async with trio.open_nursery() as nursery:
            startds = [await serve(nursery, cfg_pool, {Match: recording(n, take)}) for n in "ab"]
            schedds = [await serve(nursery, cfg_pool, {Matched: recording(n, note)}) for n in "xy"]
            offers = [
                negotiator.offer(
                    ClassAd({"ClusterId": 1, "ProcId": i, "Owner": "alice"}),
                    slot_ad(startds[i % 2], f"slot{i // 2 + 1}@{'ab'[i % 2]}"),
                    schedds[i // 3],
                    "alice@s",
                    None,
                )
                for i in range(6)
            ]
            made = await negotiator.handout.deliver(offers)
            nursery.cancel_scope.cancel()
        return made

    assert trio.run(main) == 4
    for name in "abxy":  # chunks of 2: three requests, all on one connection
        assert len({conn for conn, _ in seen[name]}) == 1, name
    # The startds were each asked for their 3 slots, one request per chunk of matches.
    assert sorted(r.slot for _, r in seen["a"]) == ["slot1@a", "slot2@a", "slot3@a"]
    assert sorted(r.job for _, r in seen["x"] + seen["y"]) == ["1.0", "1.1", "1.3", "1.4", "1.5"]
    assert "match of alice@s with slot2@a not made: slot2@a is Claimed/Busy" in caplog.text
    assert "not made: no job 1.4" in caplog.text


def schedd_ad(address: str) -> ClassAd:
    ad = ClassAd({"MyType": "Scheduler", "Name": "peer-schedd", "MyAddress": address})
    ad["TotalIdleJobs"] = 1
    return ad


@pytest.mark.parametrize(
    ("who", "how"),
    [
        ("collector", refusing("permission", "no queries today")),
        ("collector", streaming(lambda req: ["Name = = ="])),
        ("collector", streaming(lambda req: [{"Name": wire.Expr("= = =")}])),
        ("collector", streaming(lambda req: wire.pack_ads([{"Name": wire.Expr("= = =")}]))),
        ("collector", streaming(lambda req: b"\xc1 is no msgpack")),
        ("collector", hanging),
        ("schedd", refusing("busy", "the queue is being rewritten")),
        ("schedd", streaming(lambda req: [[1, "Owner = = ="]])),
        ("schedd", streaming(lambda req: ["not a row", {"a": 1}])),
        ("schedd", streaming(lambda req: [[10**12, 'Owner = "alice"']])),
        ("schedd", hanging),
    ],
    ids=[
        "collector-refuses",
        "collector-garbage",
        "collector-map-rows",
        "collector-packed-ad-that-does-not-parse",
        "collector-packed-garbage",
        "collector-hangs",
        "schedd-refuses",
        "schedd-garbage",
        "schedd-bad-rows",
        "schedd-counts-too-many",
        "schedd-hangs",
    ],
)
def test_a_failed_query_fails_one_cycle_not_the_loop(cfg_pool, who, how):
    """The loop goes on to the next cycle after a cycle whose collector or schedd query
    was refused, answered with ads that do not parse, or never answered."""
    negotiator = Negotiator(cfg_pool.cfg)
    asked = {"collector": 0, "schedd": 0}
    again = trio.Event()

    def counted(name: str, handler: Handler) -> Handler:
        async def h(peer: Peer, req: Any, ch: wire.Channel) -> dict[str, Any]:
            asked[name] += 1
            if asked[who] >= 3:
                again.set()
            return await handler(peer, req, ch)

        return h

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            schedd_how = how if who == "schedd" else streaming(lambda req: [])
            schedd = await serve(nursery, cfg_pool, {Autoclusters: counted("schedd", schedd_how)})

            def pool_ads(req: QueryAds) -> bytes | list[Any]:
                if req.type == "machineprivate":
                    return []  # no slot offers a claim id: each match goes to its startd
                ad = slot_ad("<127.0.0.1:1>") if req.type == "machine" else schedd_ad(schedd)
                return _core.ads_to_msgpack([ad])

            collector_how = how if who == "collector" else streaming(pool_ads)
            collector = await serve(
                nursery, cfg_pool, {QueryAds: counted("collector", collector_how)}
            )
            negotiator.collector = CollectorClient(cfg_pool.cfg, negotiator.creds, collector)
            nursery.start_soon(negotiator.loop)
            with trio.fail_after(60):
                await again.wait()  # a third cycle asked again: the loop lives
            nursery.cancel_scope.cancel()

    # Virtual time, jumped whenever every task has waited 20 ms of real time: the cycles'
    # interval and the hanging peer's timeout pass at once, the real sockets' I/O not.
    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0.02))
    assert asked[who] >= 3


# -- with real daemons ---------------------------------------------------------------------


@pytest.fixture
def one_slot(pool: Pool) -> Pool:
    """One slot, whose matches do not lapse while the test looks."""
    with open(pool.config_file, "a") as f:
        f.write(POOL + "NUM_CPUS = 1\nMATCH_TIMEOUT = 3600\n")
    pool.reload()
    pool.start("collector", "startd", "schedd")  # the negotiator is the test's own
    return pool


class LaggingCollector(CollectorClient):
    """The real collector, but for machine ads, while `behind` holds some: what a
    negotiator sees when the startd's latest update has not reached the collector yet."""

    behind: list[ClassAd] | None = None

    async def query_ads(self, kind: str, constraint: str | None = None) -> list[ClassAd]:
        if kind == "machine" and self.behind is not None:
            return self.behind
        return await super().query_ads(kind, constraint)


def machine_ads(pool: Pool) -> list[ClassAd]:
    client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    return trio.run(client.query_ads, "machine")


def idle_jobs_advertised(pool: Pool) -> bool:
    client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    schedds = trio.run(client.query_ads, "scheduler")
    return any(s.get("TotalIdleJobs") for s in schedds)


def history(pool: Pool) -> list[str]:
    return pool.cli("condorx.cli.history", "-af", "ProcId", "JobStatus").stdout.splitlines()


def test_a_stale_ad_costs_a_refusal_then_a_newer_one_is_matched(one_slot, caplog):
    """The negotiator still sees a slot Unclaimed that its startd has given to another
    match: the startd refuses, the cycle ends well, the slot sits out the next cycle on
    the same ad, and once the startd advertises again the slot is matched and the job
    runs."""
    pool = one_slot
    caplog.set_level(logging.INFO, logger="condorx.negotiator")
    stale = wait_for(
        lambda: [a for a in machine_ads(pool) if a.get("State") == "Unclaimed"],
        "the slot to be advertised Unclaimed",
    )
    name, seq = stale[0]["Name"], stale[0]["UpdateSequenceNumber"]
    other = {"cmd": "match", "slot": name, "claim_id": "another-match", "user": "bob"}
    pool.call_daemon("startd", {**other, "schedd": pool.daemon("schedd").address()})

    (pool.root / "job.sub").write_text("executable = /bin/true\nqueue\n")
    pool.cli("condorx.cli.submit", "job.sub")
    wait_for(lambda: idle_jobs_advertised(pool), "the schedd to advertise its idle job")

    negotiator = Negotiator(pool.cfg)
    negotiator.inform = True  # NEGOTIATOR_INFORM_STARTD: the startd hears of it first
    collector = negotiator.collector = LaggingCollector(pool.cfg, negotiator.creds)
    collector.behind = stale
    trio.run(negotiator.cycle)
    assert negotiator.last_cycle["matches"] == 0
    assert f"with {name} not made: {name} is Matched" in caplog.text
    trio.run(negotiator.cycle)  # the same ad: the slot is not offered again
    assert caplog.text.count("not made") == 1

    # The other match's claim is made on a connection that then closes: the claim ends
    # with it, and the startd advertises its slot Unclaimed anew.
    pool.call_daemon("startd", {"cmd": "claim", "claim_id": "another-match"})
    wait_for(
        lambda: (
            [(a["State"], a["UpdateSequenceNumber"] > seq) for a in machine_ads(pool)]
            == [("Unclaimed", True)]
        ),
        "the startd to advertise its slot Unclaimed again",
    )
    collector.behind = None
    trio.run(negotiator.cycle)
    assert negotiator.last_cycle["matches"] == 1
    wait_for(lambda: history(pool) == ["0 4"], "the job to complete")
