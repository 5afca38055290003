"""CEDAR's framing and AES-GCM in-process (`condorx.transport.cedar.packets`, `codec`): two ends
of a connection agree on every message; a change to the bytes between them is a
CedarError (never another exception), and on a sealed connection every change is
caught."""

from __future__ import annotations

import hashlib

import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from condorx.classad import ClassAd
from condorx.transport.cedar.codec import CedarError, Reader, Writer
from condorx.transport.cedar.packets import SEND_CHUNK, Connection

KEY = hashlib.sha256(b"a session key").digest()


def _pair() -> tuple[Connection, Connection, trio.testing.MemorySendStream]:
    a_to_b = trio.testing.memory_stream_one_way_pair()
    b_to_a = trio.testing.memory_stream_one_way_pair()
    a = Connection(trio.StapledStream(a_to_b[0], b_to_a[1]), max_message=1 << 24)
    b = Connection(trio.StapledStream(b_to_a[0], a_to_b[1]), max_message=1 << 24)
    return a, b, a_to_b[0]


def test_values_round_trip_in_the_clear_and_encrypted():
    async def go() -> list[object]:
        a, b, _ = _pair()
        got = []
        for encrypted in (False, True):
            if encrypted:
                await a.send(Writer().integer(7).bytes())  # a clear exchange first:
                await b.receive()  # the transcript the first sealed packet covers
                a.start_encryption(KEY)
                b.start_encryption(KEY)
            w = Writer(encrypted).integer(-5).char(2).double(0.1).string("é").string(None)
            w.classad(ClassAd({"A": 1, "B": "two\nlines", "C": True}))
            await a.send(w.bytes())
            r = Reader(await b.receive(), encrypted)
            values = (r.integer(), r.char(), r.double(), r.string(), r.string())
            got.append((*values, dict(r.classad())))
        return got

    clear, sealed = trio.run(go)
    assert clear == sealed
    n, c, d, s, null, ad = clear
    assert (n, c, s, null, ad) == (-5, 2, "é", None, {"A": 1, "B": "two\nlines", "C": True})
    assert abs(d - 0.1) < 1e-9


def test_a_message_larger_than_a_packet_arrives_whole():
    async def go() -> bytes:
        a, b, _ = _pair()
        a.start_encryption(KEY)
        b.start_encryption(KEY)
        body = bytes(range(256)) * (3 * SEND_CHUNK // 256 + 7)
        await a.send(body)
        got = await b.receive()
        assert got == body
        return got

    trio.run(go)


@settings(max_examples=200, deadline=None)
@given(
    encrypted=st.booleans(),
    at=st.integers(min_value=0, max_value=400),
    xor=st.integers(min_value=1, max_value=255),
    cut=st.booleans(),
)
def test_changed_or_cut_bytes_are_a_cedar_error(encrypted, at, xor, cut):
    async def go() -> None:
        a, b, _ = _pair()
        if encrypted:
            a.start_encryption(KEY)
            b.start_encryption(KEY)
        body = Writer(encrypted).integer(1).classad(ClassAd({"Name": "x" * 100})).bytes()
        wire = bytearray()
        flags = []  # where each packet's end flag is
        for start in range(0, len(body), 64):  # several packets
            last = start + 64 >= len(body)
            flags.append(len(wire))
            wire += a._packet(body[start : start + 64], 1 if last else 0)
        at_ = at % len(wire)
        if cut:
            del wire[at_:]
        else:
            wire[at_] ^= xor
        # A last packet's end flag changed to another that also means "last" (the
        # receiver, as HTCondor's, takes 1..10 so) says the same thing.
        same = not cut and not encrypted and at_ == flags[-1] and 1 <= wire[at_] <= 10
        stream = trio.testing.memory_stream_pair()
        b.stream = stream[1]
        await stream[0].send_all(bytes(wire))
        await stream[0].aclose()
        try:
            got = await b.receive()
        except CedarError:
            return
        # In the clear nothing proves the bytes: a changed end flag ends the message
        # early, a changed payload arrives changed. Sealed, every change is caught.
        assert not encrypted and (got != body or same)

    trio.run(go)


def test_a_silent_peer_is_let_go_after_exactly_the_idle_time():
    async def go() -> float:
        a, b, _ = _pair()
        b.idle = 30.0
        start = trio.current_time()
        try:
            await b.receive()
        except CedarError as e:
            assert "said nothing for 30 s" in str(e)
            return trio.current_time() - start
        raise AssertionError("a silent peer's message was received")

    assert trio.run(go, clock=trio.testing.MockClock(autojump_threshold=0)) == 30.0


def test_a_client_whose_bytes_are_all_there_still_lets_others_run():
    """Messages already in the socket are read without a trip through the scheduler,
    but not forever: another task runs before a reader of 200 such messages is done."""

    async def go() -> tuple[int, int]:
        a, b = trio.socket.socketpair()
        writer, reader = trio.SocketStream(a), trio.SocketStream(b)
        sender = Connection(writer)
        for i in range(200):
            await sender.send(Writer().integer(i).bytes())
        conn = Connection(reader)
        state = {"read": 0, "seen_at": -1}

        async def other() -> None:
            state["seen_at"] = state["read"]

        async with trio.open_nursery() as nursery:
            nursery.start_soon(other)
            for _ in range(200):
                Reader(await conn.receive()).integer()
                state["read"] += 1
        await writer.aclose()
        await reader.aclose()
        return state["seen_at"], state["read"]

    seen_at, read = trio.run(go)
    assert read == 200
    assert 0 <= seen_at < 200
