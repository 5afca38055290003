"""What a daemon grants a connection (`condorx.transport.limits`): a stranger's frame is at
most 64 KiB and its handshake must finish in time; connections are capped per host and
in all; an authenticated connection that sits idle is closed unless a claim holds it.

Each test runs the daemons' own `Server` in the test's process, on loopback, with the
limits made small; the strangers are bare sockets."""

from __future__ import annotations

import struct
from typing import Any

import pytest
import trio

from condorx.daemons.core.server import Server
from condorx.testing.echo import COMMANDS, HANDLERS
from condorx.testing.pool import run_in_nursery as run
from condorx.transport import security, wire
from condorx.transport.connection import Address, Credentials, connect
from condorx.transport.limits import Limits

KEY = b"0123456789abcdef0123456789abcdef"
CREDS = Credentials(pool_key=KEY)


async def start(nursery: trio.Nursery, **limits: Any) -> Address:
    server = Server("test", HANDLERS, KEY, limits=Limits(**limits), commands=COMMANDS)
    port = await nursery.start(server.serve_tcp, "127.0.0.1", 0)
    return Address(host="127.0.0.1", port=port)


async def stranger(addr: Address) -> trio.SocketStream:
    assert addr.host is not None and addr.port is not None
    s = await trio.open_tcp_stream(addr.host, addr.port)
    await s.send_all(wire.PREAMBLE)  # a stranger that speaks condorx's wire
    return s


async def read_until_closed(stream: trio.SocketStream) -> bytes:
    """Everything the daemon sends until it closes the connection."""
    got = b""
    while chunk := await stream.receive_some(65536):
        got += chunk
    return got


def test_a_stranger_announcing_a_large_frame_is_refused_before_it_is_read():
    async def test(nursery: trio.Nursery) -> None:
        addr = await start(nursery)
        s = await stranger(addr)
        hello = wire.StreamChannel(s)
        await hello.receive()
        # 250 MiB announced, 1 MiB sent: the daemon stops at the header.
        try:
            await s.send_all(struct.pack(">I", 250 * 1024 * 1024) + b"\0" * (1 << 20))
        except trio.BrokenResourceError:
            pass  # closed while we were still sending: the refusal is what matters
        reply = await hello.receive()
        assert reply["ok"] is False and reply["error"]["kind"] == "authentication"
        assert "exceeds the limit of 65536" in reply["error"]["message"]

    run(test)


def test_after_authentication_the_configured_frame_size_applies():
    async def test(nursery: trio.Nursery) -> None:
        addr = await start(nursery, max_frame=4 << 20)
        ch = await connect(addr, CREDS)
        data = "x" * (1 << 20)  # 1 MiB: over the stranger's limit, under the peer's
        assert (await ch.request({"cmd": "echo", "data": data}))["echo"] == data
        await ch.aclose()

    run(test)


def test_a_handshake_not_finished_in_time_is_closed():
    async def test(nursery: trio.Nursery) -> None:
        addr = await start(nursery, handshake_timeout=0.3)
        s = await stranger(addr)  # reads the hello, then says nothing
        got = await read_until_closed(s)
        assert b"hello" in got  # it was a daemon, and it hung up on us

    run(test)


def test_connections_beyond_the_per_host_cap_are_refused_until_one_closes():
    async def test(nursery: trio.Nursery) -> None:
        addr = await start(nursery, max_per_host=3)
        held = [await connect(addr, CREDS) for _ in range(3)]
        with pytest.raises(wire.RemoteError, match="too many connections") as refused:
            await connect(addr, CREDS)
        assert refused.value.kind == "busy"
        await held.pop().aclose()
        with trio.fail_after(5):
            while True:  # the daemon notices the close on its own time
                try:
                    held.append(await connect(addr, CREDS))
                    break
                except wire.RemoteError:
                    await trio.sleep(0.05)
        for ch in held:
            await ch.aclose()

    run(test)


def test_the_total_cap_counts_every_host():
    async def test(nursery: trio.Nursery) -> None:
        addr = await start(nursery, max_connections=2, max_per_host=10)
        held = [await stranger(addr), await connect(addr, CREDS)]  # a stranger counts too
        with pytest.raises(wire.RemoteError, match="too many connections"):
            await connect(addr, CREDS)
        for ch in held:
            await ch.aclose()

    run(test)


def test_an_idle_connection_is_closed_unless_a_claim_holds_it():
    async def test(nursery: trio.Nursery) -> None:
        addr = await start(nursery, idle_timeout=0.3)
        idle, claimed = await connect(addr, CREDS), await connect(addr, CREDS)
        await claimed.request({"cmd": "hold"})
        with pytest.raises(wire.WireError, match="closed by peer"):
            await idle.receive()  # the daemon hangs up
        await trio.sleep(0.6)  # twice the bound: the claimed one is still served
        assert (await claimed.request({"cmd": "echo", "data": 1}))["echo"] == 1
        await claimed.aclose()

    run(test)


def test_refused_authentications_go_to_the_audit_log(caplog):
    async def test(nursery: trio.Nursery) -> None:
        addr = await start(nursery)
        forged = security.make_token(b"not the pool key", "alice")
        with pytest.raises(wire.RemoteError, match="token authentication failed"):
            await connect(addr, Credentials(token=forged))

    with caplog.at_level("WARNING", logger="condorx.audit"):
        run(test)
    [line] = [r.getMessage() for r in caplog.records if r.name == "condorx.audit"]
    assert "test refused authentication from 127.0.0.1" in line and "'alice'" in line
