"""A connection's protection after the token handshake (`condorx.transport.session`): what the two
sides' SEC_*_ENCRYPTION / SEC_*_INTEGRITY levels give, and what a relay between them sees
and can do. The relay is a TCP forwarder in the test's process that records every byte,
and may rewrite them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import trio

from condorx.daemons.core.server import Server
from condorx.testing.echo import COMMANDS, HANDLERS
from condorx.transport import wire
from condorx.transport.connection import Address, Credentials, connect
from condorx.transport.session import Level, Mode, Policy, ProtectionError, negotiate

KEY = b"0123456789abcdef0123456789abcdef"
SECRET = "the quick brown fox jumps over the lazy dog"
R, P, OPT, N = Level.REQUIRED, Level.PREFERRED, Level.OPTIONAL, Level.NEVER

Rewrite = Callable[[bytes], bytes]


class Relay:
    """Forwards one client at a time to the daemon, keeping what passed each way."""

    def __init__(self, daemon: Address, to_daemon: Rewrite | None = None) -> None:
        self.daemon = daemon
        self.rewrite = to_daemon or (lambda b: b)
        self.upstream = bytearray()  # client -> daemon, as the daemon got it
        self.downstream = bytearray()

    async def _pump(self, src: Any, dst: Any, seen: bytearray, rewrite: Rewrite) -> None:
        try:
            while data := await src.receive_some(65536):
                data = rewrite(data)
                seen += data
                await dst.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            await dst.aclose()

    async def _handle(self, client: trio.SocketStream) -> None:
        assert self.daemon.host and self.daemon.port
        daemon = await trio.open_tcp_stream(self.daemon.host, self.daemon.port)
        async with trio.open_nursery() as n:
            n.start_soon(self._pump, client, daemon, self.upstream, self.rewrite)
            n.start_soon(self._pump, daemon, client, self.downstream, lambda b: b)

    async def start(self, nursery: trio.Nursery) -> Address:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        nursery.start_soon(trio.serve_listeners, self._handle, listeners)
        return Address(host="127.0.0.1", port=listeners[0].socket.getsockname()[1])


async def daemon(nursery: trio.Nursery, policy: Policy) -> Address:
    server = Server("test", HANDLERS, KEY, policy=policy, commands=COMMANDS)
    port = await nursery.start(server.serve_tcp, "127.0.0.1", 0)
    return Address(host="127.0.0.1", port=port)


def run(test: Any) -> Any:
    async def main() -> Any:
        async with trio.open_nursery() as nursery:
            with trio.fail_after(30):
                result = await test(nursery)
            nursery.cancel_scope.cancel()
        return result

    return trio.run(main)


def exchange(daemon_policy: Policy, client_policy: Policy) -> Relay:
    """One request with a secret in it, through a relay; what the relay saw."""

    async def test(nursery: trio.Nursery) -> Relay:
        relay = Relay(await daemon(nursery, daemon_policy))
        ch = await connect(await relay.start(nursery), Credentials(None, KEY, client_policy))
        assert (await ch.request({"cmd": "echo", "data": SECRET}))["echo"] == SECRET
        await ch.aclose()
        return relay

    return run(test)


def test_by_default_the_relay_sees_no_request_and_no_reply():
    relay = exchange(Policy(), Policy())
    assert b"hello" in relay.downstream  # the handshake itself is in the clear...
    assert SECRET.encode() not in relay.upstream  # ...what follows is not
    assert SECRET.encode() not in relay.downstream
    assert b"echo" not in relay.upstream  # not even the command's name


def test_integrity_alone_leaves_the_frames_readable():
    relay = exchange(Policy(N, R), Policy(OPT, OPT))
    assert SECRET.encode() in relay.upstream and SECRET.encode() in relay.downstream


def test_a_frame_altered_in_transit_is_refused_and_the_daemon_hangs_up():
    for policy in (Policy(), Policy(N, R)):  # encrypted, or integrity alone

        async def test(nursery: trio.Nursery, policy: Policy = policy) -> None:
            def flip(data: bytes) -> bytes:
                # The request carries the secret; flip its last byte on the way.
                if len(data) > 40 and b"protection" not in data:
                    return data[:-1] + bytes([data[-1] ^ 1])
                return data

            relay = Relay(await daemon(nursery, policy), to_daemon=flip)
            ch = await connect(await relay.start(nursery), Credentials(None, KEY, policy))
            with pytest.raises(wire.RemoteError, match="failed its integrity check"):
                await ch.request({"cmd": "echo", "data": SECRET})
            with pytest.raises(wire.WireError, match="closed by peer"):
                await ch.receive()
            await ch.aclose()

        run(test)


def test_a_relay_cannot_talk_the_client_down_to_clear_text():
    async def test(nursery: trio.Nursery) -> None:
        def downgrade(data: bytes) -> bytes:
            return data.replace(b"REQUIRED", b"OPTIONAL")  # same length: still good msgpack

        relay = Relay(await daemon(nursery, Policy(OPT, OPT)), to_daemon=downgrade)
        with pytest.raises(wire.RemoteError, match="token authentication failed"):
            await connect(await relay.start(nursery), Credentials(None, KEY, Policy()))

    run(test)


def test_a_client_that_requires_encryption_refuses_a_daemon_that_never_encrypts():
    async def test(nursery: trio.Nursery) -> None:
        addr = await daemon(nursery, Policy(N, N))
        with pytest.raises(wire.RemoteError, match="requires encryption"):
            await connect(addr, Credentials(None, KEY, Policy()))

    run(test)


@pytest.mark.parametrize(
    ("daemon_levels", "client_levels", "mode"),
    [
        ((R, R), (OPT, OPT), Mode.ENCRYPTED),
        ((OPT, OPT), (OPT, OPT), Mode.CLEAR),
        ((OPT, OPT), (P, OPT), Mode.ENCRYPTED),
        ((N, R), (P, OPT), Mode.INTEGRITY),
        ((OPT, P), (OPT, OPT), Mode.INTEGRITY),
        ((N, N), (P, P), Mode.CLEAR),
    ],
)
def test_the_daemon_decides_as_htcondor_does(daemon_levels, client_levels, mode):
    assert negotiate(Policy(*daemon_levels), Policy(*client_levels)) is mode


@pytest.mark.parametrize(
    ("daemon_levels", "client_levels"), [((R, OPT), (N, OPT)), ((OPT, R), (OPT, N))]
)
def test_required_against_never_cannot_be_met(daemon_levels, client_levels):
    with pytest.raises(ProtectionError):
        negotiate(Policy(*daemon_levels), Policy(*client_levels))
