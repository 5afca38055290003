"""Client calls without an event loop, for the command-line tools: one conversation at a
time over a blocking socket, so a tool that asks one question does not pay for starting
trio (about half of its start-up).

The client code stays the same async code the daemons run: `run` drives a coroutine by
hand, and inside it `connect` (`transport.connection`) opens a `Stream` whose async
methods complete at once, so the coroutine never waits on a loop and finishes in one
step. A call that would wait on something else (a timer, another task) is a mistake of
the tool's path, and is refused loudly rather than run wrongly.
"""

from __future__ import annotations

import _socket
import contextvars
from collections.abc import Callable, Coroutine

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

_ACTIVE: contextvars.ContextVar[bool] = contextvars.ContextVar("blocking", default=False)


class Broken(OSError):
    """The connection broke (the other side reset it)."""


def active() -> bool:
    """Whether the calling code runs under `run` (connections are to be blocking)."""
    return _ACTIVE.get()


def run(fn: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
    """`fn(*args)` to its end, without an event loop."""
    token = _ACTIVE.set(True)
    coro = fn(*args)
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    finally:
        _ACTIVE.reset(token)
    coro.close()
    raise RuntimeError(f"{getattr(fn, '__name__', fn)} waited on an event loop in a blocking run")


class Stream:
    """A connected socket with the few async methods a `wire.StreamChannel` calls, each
    done before it returns.

    The socket is `_socket`'s, the C type that `socket.socket` extends: importing
    `socket` (which makes its enums, and loads selectors) was 13.8 of condor_q's 138
    million instructions, and a tool needs none of what it adds."""

    def __init__(self, sock: _socket.socket) -> None:
        self.sock = sock

    @classmethod
    def tcp(cls, host: str, port: int) -> Stream:
        sock = _connected(host, port)
        sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        return cls(sock)

    @classmethod
    def unix(cls, path: str) -> Stream:
        return cls(_connect(_socket.AF_UNIX, _socket.SOCK_STREAM, 0, path))

    async def send_all(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as e:
            raise Broken(e.errno, e.strerror) from None

    async def receive_some(self, max_bytes: int) -> bytes:
        try:
            return self.sock.recv(max_bytes)
        except ConnectionResetError as e:
            raise Broken(e.errno, e.strerror) from None

    async def aclose(self) -> None:
        self.sock.close()


def _connected(host: str, port: int) -> _socket.socket:
    """A socket connected to the first of the host's addresses that answers, as
    `socket.create_connection` does it (the last one's error if none does)."""
    error: OSError | None = None
    for family, kind, proto, _, address in _socket.getaddrinfo(host, port, 0, _socket.SOCK_STREAM):
        try:
            return _connect(family, kind, proto, address)
        except OSError as e:
            error = e
    raise error or OSError(f"no address found for {host}")


def _connect(family: int, kind: int, proto: int, address: Any) -> _socket.socket:
    sock = _socket.socket(family, kind, proto)
    try:
        sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return sock
