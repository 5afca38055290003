"""Connections kept between daemons (`condorx.client.peers`): requests to one daemon share
one connection; a refusal keeps it; one the daemon closed as idle is opened again, once,
without the caller seeing it; `sweep` closes what is no longer used. And batch requests
(`condorx.daemons.core.batch`): each item is answered on its own.

The daemon is the daemons' own `Server`, in the test's process, on loopback."""

from __future__ import annotations

from typing import Any

import trio

from condorx.client.peers import Peers
from condorx.daemons.core import batch
from condorx.daemons.core.server import Peer, Server
from condorx.errors import Refused
from condorx.testing.echo import COMMANDS, Echo, Echoed
from condorx.testing.pool import run_in_nursery as run
from condorx.transport import wire
from condorx.transport.connection import Credentials
from condorx.transport.limits import Limits

KEY = b"0123456789abcdef0123456789abcdef"
CREDS = Credentials(pool_key=KEY)


class Daemon:
    """An echo daemon that remembers which connection each request came on, and refuses
    the data "no"."""

    def __init__(self) -> None:
        self.connections: list[int] = []
        # Each connection's peer, kept alive: an id is unique only among live objects (a
        # second connection's peer may take the first's freed memory, and so its id).
        self.peers: list[Peer] = []

    async def echo(self, peer: Peer, req: Echo, ch: wire.Channel) -> Echoed:
        self.peers.append(peer)
        self.connections.append(id(peer))
        if req.data == "no":
            raise Refused("bad-request", "not that")
        if req.data == "bug":
            raise RuntimeError("a handler's bug")
        return Echoed(peer.user, req.data)

    async def start(self, nursery: trio.Nursery, **limits: Any) -> str:
        server = Server(
            "test",
            {Echo: self.echo},
            KEY,
            limits=Limits(**limits),
            commands={"echo": COMMANDS["echo"]},
        )
        port = await nursery.start(server.serve_tcp, "127.0.0.1", 0)
        return f"<127.0.0.1:{port}>"


def test_requests_to_one_daemon_share_a_connection_and_a_refusal_keeps_it():
    async def test(nursery: trio.Nursery) -> None:
        daemon = Daemon()
        address = await daemon.start(nursery)
        peers = Peers(CREDS, timeout=10)
        for i in range(5):
            assert (await peers.request(address, Echo(i)))["echo"] == i
        try:
            await peers.request(address, Echo("no"))
            raise AssertionError("the refusal was not raised")
        except wire.RemoteError as e:
            assert e.kind == "bad-request" and "not that" in str(e)
        assert (await peers.request(address, Echo("after")))["echo"] == "after"
        assert len(daemon.connections) == 7 and len(set(daemon.connections)) == 1
        await peers.aclose()

    run(test)


def test_concurrent_requests_to_one_daemon_go_one_at_a_time_on_its_connection():
    async def test(nursery: trio.Nursery) -> None:
        daemon = Daemon()
        address = await daemon.start(nursery)
        peers = Peers(CREDS, timeout=10)
        got: list[Any] = []

        async def ask(i: int) -> None:
            got.append((await peers.request(address, Echo(i)))["echo"])

        async with trio.open_nursery() as asking:
            for i in range(20):
                asking.start_soon(ask, i)
        assert sorted(got) == list(range(20))
        assert len(set(daemon.connections)) == 1
        await peers.aclose()

    run(test)


def test_a_connection_the_daemon_closed_as_idle_is_opened_again_unseen():
    async def test(nursery: trio.Nursery) -> None:
        daemon = Daemon()
        address = await daemon.start(nursery, idle_timeout=0.2)
        peers = Peers(CREDS, timeout=10)
        assert (await peers.request(address, Echo(1)))["echo"] == 1
        # The daemon closes it after 0.2 s idle; wait until it has, then ask again.
        channel = peers.open[address].channel
        assert channel is not None
        with trio.fail_after(10):
            while await channel.stream.receive_some(1):
                pass
        assert (await peers.request(address, Echo(2)))["echo"] == 2
        assert len(daemon.connections) == 2 and len(set(daemon.connections)) == 2
        await peers.aclose()

    run(test)


def test_a_daemon_that_is_gone_is_the_callers_failure_and_nothing_stays_open():
    async def test(nursery: trio.Nursery) -> None:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as own:
                address = await Daemon().start(own)
                scope.cancel()
        peers = Peers(CREDS, timeout=10)
        try:
            await peers.request(address, Echo(1))
            raise AssertionError("a request to a stopped daemon succeeded")
        except OSError:
            pass
        assert peers.open[address].channel is None

    run(test)


def test_sweep_closes_the_connections_not_used_since_the_last_sweep():
    async def test(nursery: trio.Nursery) -> None:
        daemon = Daemon()
        used, unused = await daemon.start(nursery), await daemon.start(nursery)
        peers = Peers(CREDS, timeout=10)
        await peers.request(used, Echo(1))
        await peers.request(unused, Echo(1))
        await peers.sweep()  # both were used since the start
        assert set(peers.open) == {used, unused}
        await peers.request(used, Echo(2))
        await peers.sweep()
        assert set(peers.open) == {used}
        await peers.aclose()

    run(test)


def test_a_batch_answers_each_item_on_its_own():
    async def test(nursery: trio.Nursery) -> None:
        daemon = Daemon()
        peer = Peer(user="condor_pool", method="token", address="<127.0.0.1:1>")
        items: list[Any] = [{"data": 1}, {"data": "no"}, "not a map", {"data": "bug"}, {}]
        results = await batch.each(peer, items, Echo, daemon.echo, None)  # type: ignore[arg-type]
        assert results[0] == {"user": "condor_pool", "echo": 1}
        assert results[1] == {"refused": "not that", "kind": "bad-request"}
        assert results[2]["kind"] == "bad-request" and "a map" in results[2]["refused"]
        assert results[3]["kind"] == "internal"
        assert results[4] == {"user": "condor_pool"}  # Echo's data may be left out

    run(test)
