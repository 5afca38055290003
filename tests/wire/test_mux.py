"""Streams multiplexed over one connection (`condorx.transport.mux`), as the schedd's claims share
one connection to each startd: each stream is a conversation of its own, whose end
lapses what was held over it; the connection's end ends every stream; a peer that breaks
the framing loses its connection and nobody else's.

The daemon is the daemons' own `Server`, in the test's process, on loopback."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from condorx.daemons.core import server
from condorx.daemons.core.server import Peer, Server
from condorx.testing.echo import COMMANDS, Echo, Echoed, Hold
from condorx.testing.pool import run_in_nursery as run
from condorx.transport import mux, security, wire
from condorx.transport.connection import Address, Credentials, connect
from condorx.transport.limits import Limits
from condorx.transport.protocol.message import Done

KEY = b"0123456789abcdef0123456789abcdef"
CREDS = Credentials(pool_key=KEY)


class Daemon:
    """An echo daemon that records the connection each request came on (its peer
    address) and which held streams have lapsed."""

    def __init__(self) -> None:
        self.addresses: list[str] = []
        self.held = 0
        self.lapsed = 0
        self.done: list[Any] = []
        self.server: Server | None = None

    async def echo(self, peer: Peer, req: Echo, ch: wire.Channel) -> Echoed:
        self.addresses.append(peer.address)
        if req.data == "slow":
            await trio.sleep(0.2)
        if req.data == "late":  # as a claim taken up only after a wait
            await trio.sleep(0.3)
            self.held += 1
            peer.on_close.append(self._lapse)
        if req.data == "run":  # as a job's run: held until what it holds lapses
            lapsed = trio.Event()
            peer.on_close.extend([self._lapse, lapsed.set])
            self.held += 1
            await lapsed.wait()
            self.done.append(req.data)
        return Echoed(peer.user, req.data)

    async def hold(self, peer: Peer, req: Hold, ch: wire.Channel) -> Done:
        self.held += 1
        peer.on_close.append(self._lapse)
        return Done()

    def _lapse(self) -> None:
        self.lapsed += 1

    async def start(self, nursery: trio.Nursery, **limits: Any) -> Address:
        self.server = Server(
            "test", {Echo: self.echo, Hold: self.hold}, KEY, Limits(**limits), commands=COMMANDS
        )
        port = await nursery.start(self.server.serve_tcp, "127.0.0.1", 0)
        return Address(host="127.0.0.1", port=port)

    def connections(self) -> int:
        assert self.server is not None
        return self.server._open.total()


async def up(nursery: trio.Nursery, **limits: Any) -> tuple[Daemon, Address, mux.Multiplexer]:
    """A daemon, its address, and a client's streams to it."""
    daemon = Daemon()
    address = await daemon.start(nursery, **limits)
    return daemon, address, mux.Multiplexer(CREDS, nursery)


async def wait_for(condition: Any) -> None:
    with trio.fail_after(10):
        while not condition():
            await trio.sleep(0.01)


def test_many_streams_share_one_connection_and_each_gets_its_own_replies():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        got: dict[int, list[Any]] = {}

        async def converse(i: int) -> None:
            stream, _ = await streams.open(address)
            got[i] = [(await stream.request(Echo(d).to_wire()))["echo"] for d in (i, "slow", -i)]
            await stream.aclose()

        async with trio.open_nursery() as talking:
            for i in range(1, 51):
                talking.start_soon(converse, i)
        assert got == {i: [i, "slow", -i] for i in range(1, 51)}
        assert len(daemon.addresses) == 150 and len(set(daemon.addresses)) == 1
        # The last stream's end closed the connection.
        await wait_for(lambda: daemon.connections() == 0)
        assert streams.links == {}

    run(test)


def test_a_streams_end_lapses_what_it_held_and_nothing_else():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        held = [(await streams.open(address))[0] for _ in range(3)]
        for stream in held:
            await stream.request(Hold().to_wire())
        assert daemon.held == 3 and daemon.lapsed == 0
        await held[0].aclose()
        await wait_for(lambda: daemon.lapsed == 1)
        # The others still converse, over the same connection.
        assert (await held[1].request(Echo("still").to_wire()))["echo"] == "still"
        assert daemon.lapsed == 1 and daemon.connections() == 1
        for stream in held[1:]:
            await stream.aclose()
        await wait_for(lambda: daemon.lapsed == 3 and daemon.connections() == 0)

    run(test)


def test_a_stream_ended_mid_request_lapses_at_once_and_its_neighbours_go_on():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        running, _ = await streams.open(address)
        other, _ = await streams.open(address)
        await other.request(Hold().to_wire())
        await running.send(Echo("run").to_wire())
        await wait_for(lambda: daemon.held == 2)
        # The answer waits for the lapse, which only the stream's end brings.
        assert daemon.done == [] and daemon.lapsed == 0
        await running.aclose()
        await wait_for(lambda: daemon.done == ["run"] and daemon.lapsed == 1)
        assert (await other.request(Echo("on").to_wire()))["echo"] == "on"
        await other.aclose()
        await wait_for(lambda: daemon.lapsed == 2)

    run(test)


def test_the_connections_end_ends_every_stream_on_both_sides():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        held = [(await streams.open(address))[0] for _ in range(4)]
        for stream in held:
            await stream.request(Hold().to_wire())
        (link,) = streams.links.values()
        link.kill("the test cuts it")
        await wait_for(lambda: daemon.lapsed == 4)
        for stream in held:
            try:
                await stream.request(Echo(1).to_wire())
                raise AssertionError("a stream outlived its connection")
            except wire.Closed:
                pass
        # A new stream opens a new connection.
        stream, reused = await streams.open(address)
        assert not reused
        assert (await stream.request(Echo("again").to_wire()))["echo"] == "again"
        await stream.aclose()

    run(test)


def test_a_daemons_idle_stream_ends_and_a_held_one_does_not():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery, idle_timeout=0.3)
        idle, (held, _) = (await streams.open(address))[0], await streams.open(address)
        await idle.request(Echo(1).to_wire())
        await held.request(Hold().to_wire())
        with trio.fail_after(10):
            try:
                await idle.receive()
                raise AssertionError("the daemon sent a frame unasked")
            except wire.Closed:
                pass
        await trio.sleep(0.5)
        assert (await held.request(Echo(2).to_wire()))["echo"] == 2
        assert daemon.lapsed == 0
        await idle.aclose()
        await held.aclose()

    run(test)


def test_streams_past_the_limit_are_refused_and_the_rest_carry_on():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery, max_streams=3)
        held = [(await streams.open(address))[0] for _ in range(3)]
        for stream in held:
            await stream.request(Hold().to_wire())
        extra, _ = await streams.open(address)
        try:
            await extra.request(Echo(1).to_wire())
            raise AssertionError("a fourth stream was served")
        except wire.RemoteError as e:
            assert e.kind == "busy"
        assert (await held[2].request(Echo(3).to_wire()))["echo"] == 3
        await extra.aclose()
        for stream in held:
            await stream.aclose()

    run(test)


async def raw_mux(address: Address) -> wire.StreamChannel:
    ch = await connect(address, CREDS)
    await ch.request(mux.SWITCH)
    return ch


def test_a_peer_that_breaks_the_framing_loses_its_connection_only():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        good, _ = await streams.open(address)
        await good.request(Hold().to_wire())
        for bad in ({"cmd": "echo"}, [0, {}], ["1", {}], [1, 2, 3], [True, {}]):
            ch = await raw_mux(address)
            await ch.send(bad)
            try:
                with trio.fail_after(10):
                    await ch.receive()
                raise AssertionError(f"{bad!r} was answered")
            except wire.Closed:
                pass
            await ch.aclose()
        assert (await good.request(Echo("fine").to_wire()))["echo"] == "fine"
        assert daemon.lapsed == 0
        await good.aclose()

    run(test)


def test_a_stream_that_sends_without_reading_is_broken_and_its_neighbours_are_not():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        good, _ = await streams.open(address)
        ch = await raw_mux(address)
        # Stream 1 asks and never reads the replies: the server's side of it holds at
        # most its share unread, then ends it.
        for _ in range(3000):
            await ch.send([1, Echo("slow").to_wire()])
        ended = False
        with trio.fail_after(10):
            while not ended:
                sid, frame = await ch.receive()
                assert sid == 1
                ended = frame is None
        assert (await good.request(Echo("fine").to_wire()))["echo"] == "fine"
        await ch.aclose()
        await good.aclose()

    run(test)


def test_a_stream_cannot_switch_again():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        stream, _ = await streams.open(address)
        try:
            await stream.request(mux.SWITCH)
            raise AssertionError("a stream was multiplexed again")
        except wire.RemoteError as e:
            assert e.kind == "bad-request"
        assert (await stream.request(Echo(1).to_wire()))["echo"] == 1
        await stream.aclose()

    run(test)


def test_what_a_handler_holds_after_its_stream_ended_still_lapses():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        stream, _ = await streams.open(address)
        await stream.send(Echo("late").to_wire())
        await stream.aclose()  # before the handler takes hold
        await wait_for(lambda: daemon.held == 1 and daemon.lapsed == 1)

    run(test)


def test_a_cancelled_close_still_ends_the_stream_on_both_sides():
    async def test(nursery: trio.Nursery) -> None:
        daemon, address, streams = await up(nursery)
        stream, _ = await streams.open(address)
        await stream.request(Hold().to_wire())
        with trio.CancelScope() as scope:
            scope.cancel()
            await stream.aclose()
        await wait_for(lambda: daemon.lapsed == 1 and daemon.connections() == 0)
        assert streams.links == {}

    run(test)


def test_only_the_pools_daemons_may_multiplex():
    async def test(nursery: trio.Nursery) -> None:
        daemon = Daemon()
        address = await daemon.start(nursery)
        ch = await connect(address, Credentials(token=security.make_token(KEY, "alice")))
        try:
            await ch.request(mux.SWITCH)
            raise AssertionError("a user multiplexed")
        except wire.RemoteError as e:
            assert e.kind == "permission"
        await ch.aclose()

    run(test)


def test_bytes_that_do_not_unpack_are_a_malformed_message_and_cost_one_connection():
    async def test(nursery: trio.Nursery) -> None:
        try:
            wire.unpack(b"\x81\x91\x01\x01")  # a map whose key is a list
            raise AssertionError("an unhashable key was unpacked")
        except wire.WireError:
            pass
        daemon = Daemon()
        address = await daemon.start(nursery, max_streams=1)
        ch = await raw_mux(address)
        await ch.send_body(b"\x81\x91\x01\x01")
        with trio.fail_after(10):
            try:
                await ch.receive()
                raise AssertionError("a malformed frame was answered")
            except wire.Closed:
                pass
        await ch.aclose()
        # Past the stream limit and gone before the refusal can be sent.
        ch = await raw_mux(address)
        await ch.send([1, Hold().to_wire()])
        await ch.send([2, Echo(1).to_wire()])
        await ch.aclose()
        streams = mux.Multiplexer(CREDS, nursery)
        stream, _ = await streams.open(address)
        assert (await stream.request(Echo("alive").to_wire()))["echo"] == "alive"
        await stream.aclose()

    run(test)


def test_a_reply_waiting_its_turn_on_a_busy_connection_is_sent_not_dropped(monkeypatch):
    # A schedd busy elsewhere reads its connection to a startd slowly, and thousands of
    # claims' replies queue for it: each must go out in its turn, however long that is
    # (a reply dropped for taking too long left its claim waiting forever). A reply on a
    # connection of its own still has a bound.
    monkeypatch.setattr(server, "_REPLY_TIMEOUT", 0.1)

    async def test(nursery: trio.Nursery) -> None:
        _, address, _ = await up(nursery)
        ch = await raw_mux(address)
        big = "x" * (16 * 1024 * 1024)  # more than the socket buffers hold
        await ch.send([1, Echo(big).to_wire()])
        await ch.send([2, Echo("slow").to_wire()])  # answered once stream 1's is going out
        await trio.sleep(1.0)  # not reading: stream 2's reply waits behind stream 1's
        replies: dict[int, Any] = {}
        with trio.fail_after(20):
            while len(replies) < 2:
                sid, frame = await ch.receive()
                replies[sid] = frame
        assert replies[1]["echo"] == big and replies[2]["echo"] == "slow"
        await ch.aclose()

    run(test)


class SlowPeer:
    """A connection whose peer reads only when let: each write waits for `go`."""

    def __init__(self) -> None:
        self.go = trio.Event()
        self.writes: list[list[bytes]] = []

    async def send_bodies(self, bodies: list[bytes]) -> None:
        await self.go.wait()
        self.writes.append(bodies)


def test_frames_queue_for_one_write_and_a_slow_peer_holds_back_their_senders():
    frame = "x" * 65536
    slow = SlowPeer()
    link = mux.Link(slow)  # type: ignore[arg-type]
    streams = [link.open() for _ in range(40)]
    returned: list[int] = []

    async def main() -> int:
        async def send(i: int) -> None:
            await streams[i].send(frame)
            returned.append(i)

        async with trio.open_nursery() as nursery:
            for i in range(40):
                nursery.start_soon(send, i)
                await trio.testing.wait_all_tasks_blocked()
            while_blocked = len(returned)
            slow.go.set()
        return while_blocked

    # The writer's own frame, then a MiB queued behind it; past that, senders wait.
    assert trio.run(main) == mux._QUEUED // len(wire.dumps([1, frame]))
    assert len(returned) == 40
    sent = [wire.unpack(b)[0] for w in slow.writes for b in w]
    assert sent == list(range(1, 41))  # every frame, in the order sent (stream ids)
    assert all(sum(map(len, w)) <= mux._QUEUED for w in slow.writes)
    assert len(slow.writes) < 40  # gathered: fewer writes than frames


def test_a_streams_frames_are_read_in_order_up_to_its_end_and_a_cancelled_read_loses_none():
    # The stream's own inbox (no connection needed to deliver to it): what a trio memory
    # channel would do, which it replaces.
    async def main() -> list[Any]:
        stream = mux.Stream(None)  # type: ignore[arg-type]
        seen: list[Any] = []
        with trio.move_on_after(5):
            await stream.receive()  # nothing yet: the wait is cancelled, nothing is lost
        async with trio.open_nursery() as nursery:

            async def read_two() -> None:
                seen.extend([await stream.receive(), await stream.receive()])

            nursery.start_soon(read_two)
            await trio.testing.wait_all_tasks_blocked()
            try:
                await stream.receive()  # a second reader while the first waits
            except trio.BusyResourceError:
                seen.append("busy")
            assert stream.deliver({"n": 1}) and stream.deliver({"n": 2})
        assert stream.deliver({"n": 3}) and stream.deliver(None)
        seen.append(await stream.receive())  # what came before the end is still read
        try:
            await stream.receive()
        except wire.Closed as e:
            seen.append(str(e))
        return seen

    seen = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert seen == ["busy", {"n": 1}, {"n": 2}, {"n": 3}, "stream 0 closed by peer"]


def test_a_stream_holding_too_many_unread_frames_is_broken_after_what_it_holds():
    async def main() -> list[Any]:
        stream = mux.Stream(None)  # type: ignore[arg-type]
        taken = [stream.deliver(i) for i in range(mux._UNREAD + 1)]
        stream.end()  # as the reader does with a stream it finds broken
        read = [await stream.receive() for _ in range(mux._UNREAD)]
        try:
            await stream.receive()
        except wire.WireError as e:
            read.append(str(e))
        return [taken, read]

    taken, read = trio.run(main)
    assert taken == [True] * mux._UNREAD + [False]
    assert read == [*range(mux._UNREAD), f"stream 0: {mux._UNREAD} frames unread"]
