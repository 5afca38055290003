"""Many conversations over one connection: the streams of a multiplexed connection.

A daemon that holds thousands of long conversations with one peer (the schedd's claims
on one execute host's slots: a claim keeps its conversation for its life) would otherwise
hold as many connections, and a process may open only so many files. After the
handshake the client sends `{"mux": 1}`; once that is answered, every frame on the
connection is `[id, frame]`: the stream's id (the client's choice, each new stream's
higher than the last) and one frame of its conversation. `[id, None]` ends a stream,
from either side. The connection's authentication and protection cover every stream on
it; each stream is a `wire.Channel` and carries requests as a connection of its own
would, and each ends when the connection does.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from condorx.transport import wire
from condorx.transport.connection import Address, Credentials, connect

# The request that turns a fresh connection into a multiplexed one.
SWITCH: dict[str, Any] = {"mux": 1}
log = logging.getLogger("condorx.transport.mux")

# Frames a stream may hold unread. Requests and their replies alternate, so a peer that
# sends this many without reading is not following the protocol: its stream is broken.
_UNREAD = 16
# A frame not sent within this long, plus a second for each MiB of it (a peer that reads
# nothing, or a link too slow to carry a job's files), breaks the connection: frames of
# every stream share it.
_SEND_TIMEOUT = 60.0
_SEND_RATE = 1024 * 1024
# Bytes of frames a connection holds for its writer before a sender waits for it to
# write (and the most one write takes): a peer slow to read slows its senders, as it
# would on a connection of their own, rather than piling up frames here.
_QUEUED = 1024 * 1024


class Stream(wire.Channel):
    """One conversation on a multiplexed connection."""

    def __init__(self, link: Link, sid: int = 0) -> None:
        self.link = link
        self.sid = sid  # 0 until its first frame goes (the client's side)
        # The frames come unread, and the one task waiting for the next: a memory
        # channel's work, but a channel costs about 2.2 KB (its deque, two ordered dicts,
        # two sets) and a schedd keeps a stream for each of 100,000 claims.
        self._frames: list[Any] = []
        self._reader: trio.lowlevel.Task | None = None
        self._ended = False  # the other side ended it (or the connection did)
        self._closed = False  # this side did
        self._broken: str | None = None
        # Called once when the other side or the connection ends the stream, even while
        # a request on it is still being answered (the server's side: a claim lapses as
        # soon as its schedd is gone, not at the running job's next heartbeat).
        self.on_end: Callable[[], None] | None = None

    async def send(self, obj: Any) -> None:
        if self._closed:
            raise trio.ClosedResourceError("stream closed")
        if self._ended:
            raise trio.BrokenResourceError(f"stream {self.sid} ended by the peer")
        await self.link.send(self, obj)

    async def receive(self) -> Any:
        """The next frame; once the stream has ended, what came before its end, then
        wire.Closed (wire.WireError when it was broken)."""
        if self._frames:
            await trio.lowlevel.checkpoint()  # as a channel's receive: a scheduling point
        while not self._frames:
            if self._ended or self._closed:
                raise self._why_over()
            if self._reader is not None:
                raise trio.BusyResourceError("another task is receiving on this stream")
            self._reader = trio.lowlevel.current_task()
            await trio.lowlevel.wait_task_rescheduled(self._abort_wait)
        return self._frames.pop(0)

    def _abort_wait(self, _: Any) -> trio.lowlevel.Abort:
        self._reader = None
        return trio.lowlevel.Abort.SUCCEEDED

    def _wake(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            trio.lowlevel.reschedule(reader)

    def _why_over(self) -> wire.WireError:
        if self._broken is not None:
            return wire.WireError(f"stream {self.sid}: {self._broken}")
        if self._closed:
            return wire.Closed(f"stream {self.sid} closed")
        return wire.Closed(f"stream {self.sid} closed by peer")

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._wake()
        try:
            if not self._ended and not self.link.dead and self.sid:
                # Shielded: a cancelled close must still end the stream on the other
                # side, where it may hold a claim.
                with trio.CancelScope(shield=True):
                    await self.link.send(self, None)
        except trio.BrokenResourceError:
            pass
        finally:
            self.link.forget(self)

    def deliver(self, frame: Any) -> bool:
        """A frame from the other side (None: it ended the stream). False when the stream
        holds too many unread, and is broken: the caller ends it."""
        if frame is None:
            self.end()
            return True
        if self._closed or self._ended:
            return True  # closed on this side while the frame was on its way
        if len(self._frames) >= _UNREAD:
            self._broken = f"{_UNREAD} frames unread"
            return False
        self._frames.append(frame)
        self._wake()
        return True

    def end(self) -> None:
        """The other side, or the connection, ended the stream: what came is still read."""
        if self._ended:
            return
        self._ended = True
        self._wake()
        if self.on_end is not None:
            try:
                self.on_end()
            except Exception:
                # The reader calls this: a bug in it must cost this stream, not all.
                log.exception("ending stream %d", self.sid)


class Link:
    """A multiplexed connection: its streams, and the task that reads for all of them."""

    def __init__(self, ch: wire.StreamChannel, on_empty: Callable[[], None] | None = None) -> None:
        self.ch = ch
        self.members: set[Stream] = set()  # the streams open on it
        self.streams: dict[int, Stream] = {}  # those with an id, by id
        # Frames waiting for the task that writes (the first sender to find no writer at
        # work): the frames of a busy connection's streams go out together, in order.
        self._queue: list[bytes] = []
        self._queued = 0  # their bytes
        self._writing = False
        self._wrote = trio.Event()  # set (and replaced) as each write ends
        self.dead: str | None = None  # why the connection is over
        self.last_sid = 0
        # Called when the last stream ends (the client then closes the connection).
        self._on_empty = on_empty
        self._reading = trio.CancelScope()
        self._waiting: trio.CancelScope | None = None
        self._idle = math.inf

    def open(self) -> Stream:
        """A new stream (the client's side): its id is given with its first frame, so
        that ids reach the server in increasing order."""
        return self._add(Stream(self))

    def take_up(self, sid: int) -> Stream:
        """A stream the client began (the server's side)."""
        stream = self.streams[sid] = Stream(self, sid)
        return self._add(stream)

    def _add(self, stream: Stream) -> Stream:
        self.members.add(stream)
        if self._waiting is not None:
            self._waiting.deadline = math.inf
        return stream

    def forget(self, stream: Stream) -> None:
        self.members.discard(stream)
        self.streams.pop(stream.sid, None)
        if self.members or self.dead:
            return
        if self._waiting is not None:
            self._waiting.deadline = trio.current_time() + self._idle
        if self._on_empty is not None:
            self._on_empty()

    async def send(self, stream: Stream, frame: Any) -> None:
        """One frame of `stream` (None ends it). It goes at once when no other frame is
        being written; else it joins the frames the writing task sends next, and this
        returns (a connection that breaks meanwhile ends every stream on it)."""
        if self.dead is not None:
            raise trio.BrokenResourceError(self.dead)
        if stream.sid == 0:
            if frame is None:
                return  # a stream that never spoke has nothing to end
            self.last_sid += 1
            stream.sid = self.last_sid
            self.streams[stream.sid] = stream
        await self._post([stream.sid, frame])

    async def refuse(self, sid: int, reply: dict[str, Any]) -> None:
        """Answer a stream the client began with `reply`, and end it (not taken up)."""
        await self._post([sid, reply], [sid, None])

    async def _post(self, *frames: list[Any]) -> None:
        if self.dead is not None:
            raise trio.BrokenResourceError(self.dead)
        for frame in frames:
            body = wire.dumps(frame)
            self._queue.append(body)
            self._queued += len(body)
        if self._writing:
            await trio.lowlevel.checkpoint()
            while self._writing and self._queued > _QUEUED and self.dead is None:
                await self._wrote.wait()
            if self.dead is not None:
                raise trio.BrokenResourceError(self.dead)
            return
        self._writing = True
        try:
            while self._queue:
                await self._write(self._next_batch())
                self._wrote.set()
                self._wrote = trio.Event()
        finally:
            self._writing = False
            self._wrote.set()
            self._wrote = trio.Event()

    def _next_batch(self) -> list[bytes]:
        """The frames of the next write: the oldest, up to _QUEUED bytes (one at least)."""
        n, size = 0, 0
        while n < len(self._queue) and (n == 0 or size + len(self._queue[n]) <= _QUEUED):
            size += len(self._queue[n])
            n += 1
        bodies, self._queue = self._queue[:n], self._queue[n:]
        self._queued -= size
        return bodies

    async def _write(self, bodies: list[bytes]) -> None:
        size = sum(len(b) for b in bodies)
        limit = _SEND_TIMEOUT + size / _SEND_RATE
        # Shielded: a frame cut off half way would garble every stream's conversation.
        with trio.CancelScope(shield=True), trio.move_on_after(limit) as sending:
            try:
                await self.ch.send_bodies(bodies)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                self.kill(f"connection broken: {e}")
                raise trio.BrokenResourceError(self.dead) from None
        if sending.cancelled_caught:
            self.kill(f"{len(bodies)} frames of {size} bytes not taken in {limit:g} s")
            raise trio.BrokenResourceError(self.dead)

    def kill(self, why: str) -> None:
        """End the connection and every stream on it."""
        if self.dead is None:
            self.dead = why
        self._reading.cancel()

    async def run(
        self,
        new: Callable[[int], Awaitable[Stream | None]] | None = None,
        idle: float = math.inf,
    ) -> None:
        """Read the connection until it ends, handing each frame to its stream. `new`
        takes up a stream the other side began (the server's side); without it, frames of
        unknown streams (ones already ended here) are dropped. With no stream open for
        `idle` seconds the connection ends."""
        self._idle = idle
        try:
            with self._reading:
                await self._read(new)
        except (wire.WireError, trio.BrokenResourceError, trio.ClosedResourceError) as e:
            self.dead = self.dead or str(e)
        finally:
            # However the reading ended, every stream ends with it.
            self.dead = self.dead or "connection closed"
            if self.members:
                # Every claim on it ends with it: the cause must be on record.
                log.warning("a connection ends with %d streams: %s", len(self.members), self.dead)
            for stream in list(self.members):
                stream.end()
            self.members.clear()
            self.streams.clear()
            with trio.CancelScope(shield=True):
                await self.ch.aclose()

    async def _read(self, new: Callable[[int], Awaitable[Stream | None]] | None) -> None:
        # One scope for all the reading, not one a frame (a scope costs more than the
        # frame's delivery): its deadline is the idle limit while no stream is open, set
        # and cleared as streams come and go (`_add`, `forget`).
        with trio.CancelScope() as waiting:
            self._waiting = waiting
            if not self.members:
                waiting.deadline = trio.current_time() + self._idle
            while True:
                await self._take(await self.ch.receive(), new)
        self._waiting = None
        if waiting.cancelled_caught:
            self.dead = f"no stream for {self._idle:g} s"

    async def _take(
        self, frame: Any, new: Callable[[int], Awaitable[Stream | None]] | None
    ) -> None:
        """Hand one frame to its stream (a new one's first: `new` takes it up)."""
        sid, payload = _parse(frame)
        stream = self.streams.get(sid)
        if stream is None:
            if payload is None or new is None:
                return
            stream = await new(sid)
            if stream is None:
                return
        if not stream.deliver(payload):
            log.warning("stream %d broken: %s", sid, stream._broken)
            await stream.aclose()


def _parse(frame: Any) -> tuple[int, Any]:
    if (
        not isinstance(frame, list)
        or len(frame) != 2
        or not isinstance(frame[0], int)
        or isinstance(frame[0], bool)
        or frame[0] <= 0
    ):
        raise wire.WireError("a multiplexed frame is [stream id, frame]")
    return frame[0], frame[1]


# -- the server's side ----------------------------------------------------------------------


async def serve(
    ch: wire.StreamChannel,
    serve_stream: Callable[[Stream], Awaitable[None]],
    max_streams: int,
    idle: float,
) -> None:
    """Serve a connection switched to streams: `serve_stream` runs each stream's
    conversation, at most `max_streams` at once; the connection ends when the client
    closes it, breaks the protocol, or holds no stream for `idle` seconds."""
    link = Link(ch)
    async with trio.open_nursery() as nursery:

        async def new(sid: int) -> Stream | None:
            if sid <= link.last_sid:
                return None  # a late frame of a stream that has ended
            link.last_sid = sid
            if len(link.members) >= max_streams:
                busy = wire.error_reply("busy", f"more than {max_streams} streams at once")
                try:
                    await link.refuse(sid, busy)
                except trio.BrokenResourceError:
                    pass  # the connection is gone with it
                return None
            stream = link.take_up(sid)
            nursery.start_soon(_serve_one, serve_stream, stream)
            return stream

        await link.run(new, idle)


async def _serve_one(serve_stream: Callable[[Stream], Awaitable[None]], stream: Stream) -> None:
    try:
        await serve_stream(stream)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the connection is gone
    finally:
        await stream.aclose()


# -- the client's side ----------------------------------------------------------------------


class Multiplexer:
    """Streams to daemons, over one connection to each address while any stream to it is
    open. Its connections' reading tasks run in `nursery`."""

    def __init__(self, creds: Credentials, nursery: trio.Nursery) -> None:
        self.creds = creds
        self.nursery = nursery
        self.links: dict[str, Link] = {}
        self._connecting: dict[str, trio.Lock] = {}

    async def open(self, addr: Address) -> tuple[Stream, bool]:
        """A new stream to `addr`, and whether its connection was already open (a
        connection found closed on first use may have been ended by the daemon just
        then, and is worth a second try)."""
        key = str(addr)
        link = self.links.get(key)
        if link is not None and link.dead is None:
            # No lock on this path: each lock hand-off waits for the scheduler's next
            # pass, and at 100,000 claims a pass took long enough that claims queued on
            # the lock behind an open connection timed out (TooSlowError, claim lost).
            return link.open(), True
        lock = self._connecting.setdefault(key, trio.Lock())
        async with lock:
            link = self.links.get(key)
            reused = link is not None and link.dead is None
            if link is None or link.dead is not None:
                link = await self._connect(key, addr)
            return link.open(), reused

    async def _connect(self, key: str, addr: Address) -> Link:
        ch = await connect(addr, self.creds)
        try:
            await ch.request(SWITCH)
        except BaseException:
            with trio.CancelScope(shield=True):
                await ch.aclose()
            raise
        link = Link(ch, on_empty=lambda: self._drop(key, link))
        self.links[key] = link
        self.nursery.start_soon(self._read, key, link)
        return link

    async def _read(self, key: str, link: Link) -> None:
        try:
            await link.run()
        except Exception:
            # This task runs in the schedd's own nursery: nothing a startd sends may
            # reach it. The connection is over; its streams have ended.
            log.exception("reading the connection to %s", key)
        finally:
            self._forget(key, link)

    def _drop(self, key: str, link: Link) -> None:
        """No stream is left on the connection: it closes."""
        self._forget(key, link)
        link.kill("no stream left")

    def _forget(self, key: str, link: Link) -> None:
        if self.links.get(key) is link:
            del self.links[key]
            lock = self._connecting.get(key)
            if lock is not None and not lock.locked():
                del self._connecting[key]
