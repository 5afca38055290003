"""The wire protocol: length-prefixed msgpack frames, how a ClassAd travels, error replies.

Only this module deals in bytes. A frame is a 4-byte big-endian length and a msgpack map.
A request is `{"cmd": NAME, ...}`; a reply is `{"ok": True, ...}` or
`{"ok": False, "error": {"kind": ..., "message": ...}}`. A streamed reply is any number of
`{"more": [...]}` frames and then the final reply.

A ClassAd travels as a map from attribute name to value: msgpack's own types for literal
integers, reals, strings and booleans, None for `undefined`, and an `Expr` extension
(code 1, UTF-8 text in new ClassAd syntax) for anything else. The receiver parses each
expression on its own, so a malformed one is refused with its attribute named.
"""

from __future__ import annotations

import re
import struct
import sys
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence

import msgpack

from condorx import _core
from condorx.classad import ClassAd, Expr, ExprTree, Value
from condorx.errors import CondorxError, Refused
from condorx.transport import blocking
from condorx.transport.blocking import Broken
from condorx.transport.session import ProtectionError, Session

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

    import trio

VERSION = 1
# Big enough for a 100,000-proc submission in one frame; anything larger is refused before
# it is read, so a peer cannot make a daemon allocate without bound.
MAX_FRAME = 256 * 1024 * 1024
# Before a peer has authenticated, it may send no more than this in one frame (a handshake
# message is well under 1 KiB): a stranger cannot make a daemon hold megabytes.
PRE_AUTH_FRAME = 64 * 1024
_HEADER = struct.Struct(">I")
# What a condorx client sends first on TCP, before the daemon's hello: it tells condorx's
# wire from HTCondor's (whose first byte, a packet's end flag, is 0 to 10) on one port.
PREAMBLE = b"CDX1"
_EXPR = 1


class WireError(CondorxError):
    """A peer broke the protocol: a bad frame, an oversized message, a closed connection."""


class Closed(WireError):
    """The connection ended between messages: nothing of the next one had come."""


class RemoteError(Refused):
    """A daemon refused a request; `kind` says why (permission, bad-request, not-found...),
    as the peer put it: any text."""

    def __init__(self, kind: str, message: str) -> None:
        CondorxError.__init__(self, message)
        self.kind = kind


def _default(obj: Any) -> Any:
    if isinstance(obj, Expr):
        return msgpack.ExtType(_EXPR, obj.text.encode())
    raise TypeError(f"cannot send {type(obj).__name__} on the wire")


def _ext_hook(code: int, data: bytes) -> Any:
    if code == _EXPR:
        return Expr(data.decode("utf-8", "replace"))
    return msgpack.ExtType(code, data)


def dumps(obj: Any) -> bytes:
    """One msgpack body (no frame header): wire maps kept on disk use it too."""
    return msgpack.packb(obj, default=_default, use_bin_type=True)


def unpack(body: bytes) -> Any:
    try:
        return msgpack.unpackb(body, ext_hook=_ext_hook, raw=False, strict_map_key=False)
    except Exception as e:  # a peer's bytes may fail in any way
        # (an unhashable map key is a TypeError): each is the peer's malformed message.
        raise WireError(f"malformed message: {e}") from None


class Channel(ABC):
    """A conversation of whole frames: a connection of its own (`StreamChannel`), or one
    stream of a multiplexed connection (`condorx.transport.mux`). Everything above the wire speaks
    to this."""

    @abstractmethod
    async def send(self, obj: Any) -> None: ...

    @abstractmethod
    async def receive(self) -> Any:
        """The next frame; `Closed` when the conversation ended between frames."""

    @abstractmethod
    async def aclose(self) -> None: ...

    async def request(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Send a request and return its final reply, raising RemoteError on a refusal."""
        await self.send_request(obj)
        return check(await self.receive())

    async def send_request(self, obj: Mapping[str, Any]) -> None:
        """Send a request whose reply is read later (`receive`, then `check`)."""
        try:
            await self.send(obj)
        except _broken():
            # The daemon refused the message part way (too large) and closed, or the
            # connection broke: its reason, or the end, is waiting to be read.
            pass

    async def streamed(self, obj: Mapping[str, Any]) -> AsyncIterator[Any]:
        """Send a request whose reply is streamed: yields each `{"more": ...}` payload,
        and checks the final reply."""
        await self.send(obj)
        while True:
            reply = await self.receive()
            if isinstance(reply, dict) and "more" in reply:
                yield reply["more"]
                continue
            check(reply)
            return


def _broken() -> tuple[type[BaseException], ...]:
    """What a broken connection raises: a blocking stream's, and trio's where trio runs
    (a tool that never starts trio never imports it)."""
    trio = sys.modules.get("trio")
    return (Broken, trio.BrokenResourceError) if trio is not None else (Broken,)


class _Alone:
    """The lock of a conversation no other task shares (a blocking tool's)."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


class StreamChannel(Channel):
    """One connection: whole frames in and out over a trio stream (or a blocking one,
    `transport.blocking`)."""

    def __init__(
        self, stream: trio.abc.Stream, max_frame: int = MAX_FRAME, pending: bytes = b""
    ) -> None:
        self.stream = stream
        self.max_frame = max_frame
        self._buf = bytearray(pending)  # bytes already read off the stream
        # Frames from several tasks (a reply's stream and notices beside it) never mix.
        self._sending: Any = _Alone() if isinstance(stream, blocking.Stream) else _trio_lock()
        self.session: Session | None = None

    def protect(self, session: Session) -> None:
        """From now on every frame is sealed and opened by `session` (after the handshake)."""
        self.session = session

    async def send(self, obj: Any) -> None:
        await self.send_body(dumps(obj))

    async def send_body(self, body: bytes) -> None:
        """A frame already packed (`dumps`)."""
        await self.send_bodies([body])

    async def send_bodies(self, bodies: list[bytes]) -> None:
        """Frames already packed, in order, in one write."""
        async with self._sending:
            # Sealed under the lock: the session's counter follows the order on the wire.
            if self.session is not None:
                bodies = [self.session.seal(b) for b in bodies]
            await self.stream.send_all(b"".join(_HEADER.pack(len(b)) + b for b in bodies))

    async def _fill(self, n: int) -> None:
        while len(self._buf) < n:
            try:
                chunk = await self.stream.receive_some(max(65536, n - len(self._buf)))
            except _broken() as e:
                # A reset connection (the daemon stopping) is a closed one to our callers.
                if not self._buf:
                    raise Closed(f"connection broken: {e}") from None
                raise WireError(f"connection broken: {e}") from None
            if not chunk:
                if not self._buf:
                    raise Closed("connection closed by peer")
                raise WireError("connection closed by peer in the middle of a message")
            self._buf += chunk

    async def receive(self) -> Any:
        await self._fill(_HEADER.size)
        (n,) = _HEADER.unpack_from(self._buf)
        if n > self.max_frame:
            raise WireError(f"message of {n} bytes exceeds the limit of {self.max_frame}")
        await self._fill(_HEADER.size + n)
        body = bytes(self._buf[_HEADER.size : _HEADER.size + n])
        del self._buf[: _HEADER.size + n]
        if self.session is not None:
            try:
                body = self.session.open(body)
            except ProtectionError as e:
                raise WireError(str(e)) from None
        return unpack(body)

    async def aclose(self) -> None:
        await self.stream.aclose()


def _trio_lock() -> Any:
    import trio

    return trio.Lock()


def check(reply: Any) -> dict[str, Any]:
    if not isinstance(reply, dict):
        raise WireError("reply is not a map")
    if reply.get("ok"):
        return reply
    err = reply.get("error") or {}
    raise RemoteError(str(err.get("kind", "error")), str(err.get("message", "request refused")))


def error_reply(kind: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"kind": kind, "message": message}}


# ----------------------------------------------------------------------------------------
# ClassAds on the wire
# ----------------------------------------------------------------------------------------

_LITERAL = (bool, int, float, str)
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


def ad_to_wire(ad: ClassAd, names: Iterable[str] | None = None) -> dict[str, Any]:
    """The ad (or the named attributes it has) as a wire map."""
    out: dict[str, Any] = {}
    for name in ad.keys() if names is None else names:
        if name not in ad:
            continue
        out[name] = value_to_wire(ad[name])
    return out


def value_to_wire(v: Any) -> Any:
    if isinstance(v, Value):  # an IntEnum: not the integer it also is
        return None if v is Value.Undefined else Expr("error")
    if isinstance(v, _LITERAL) and not (isinstance(v, int) and not _I64_MIN <= v <= _I64_MAX):
        return v
    if isinstance(v, ExprTree):
        return Expr(str(v))
    if isinstance(v, ClassAd):
        return Expr(repr(v))
    return Expr(str(ExprTree(_literal_text(v))))


def _literal_text(v: Any) -> str:
    if v is Value.Error:
        return "error"
    if isinstance(v, list):
        return "{" + ", ".join(str(value_to_wire_text(x)) for x in v) + "}"
    return repr(v)


def plain_values(values: list[Any]) -> list[Any]:
    """`plain_value` over a column; the common literal values pass through untouched."""
    plain = _PLAIN
    return [v if type(v) in plain else plain_value(v) for v in values]


def plain_value(v: Any) -> Any:
    """An evaluated value for the wire: undefined as None, error as the `error` literal."""
    if v is Value.Undefined:
        return None
    if v is Value.Error:
        return Expr("error")
    return value_to_wire(v)


def value_to_wire_text(v: Any) -> str:
    w = value_to_wire(v)
    if isinstance(w, Expr):
        return w.text
    if w is None:
        return "undefined"
    if isinstance(w, bool):
        return "true" if w else "false"
    if isinstance(w, str):
        from condorx.classad import quote

        return quote(w)
    return repr(w)


def ad_from_wire(data: Any, what: str = "ad") -> ClassAd:
    """Build a ClassAd from a wire map in one call into the core; a malformed one is a
    WireError naming the attribute."""
    try:
        return _core.ads_from_wire([data], Expr)[0]
    except _core.AdReadError as e:
        raise _refused(e, what, single=True) from None


def ads_from_wire(data: list[Any], what: str = "ad") -> list[ClassAd]:
    """Build many ClassAds from wire maps in one call into the core (each expression
    text parsed once for them all); a malformed ad's error names it by its index."""
    try:
        return _core.ads_from_wire(data, Expr)
    except _core.AdReadError as e:
        raise _refused(e, what) from None


def _refused(e: _core.AdReadError, what: str, single: bool = False) -> WireError:
    """The core's refusal of a peer's ads as the WireError a daemon logs and answers."""
    return _worded(e, f"{what}s" if e.ad is None else what if single else f"{what} {e.ad}")


def _worded(e: _core.AdReadError, where: str) -> WireError:
    """The refusal under `where` (which ad), with the attribute it names."""
    if e.attribute is not None:
        where += f": attribute {e.attribute}"
    return WireError(f"{where}: {e.reason}")


def pack_ads(maps: Iterable[dict[str, Any]]) -> bytes:
    """Wire maps as one msgpack body, for `ads_from_packed` to read."""
    return dumps(list(maps))


def pack_classads(ads: list[ClassAd], projection: list[str] | None = None) -> bytes:
    """ClassAds as one packed body (written in the core), for `ads_from_packed`; with
    `projection`, only the attributes it names."""
    return _core.ads_to_msgpack(ads, projection)


def pack_ad(ad: ClassAd) -> bytes:
    """One ad as a packed body (written in the core), for `ad_from_packed`."""
    return pack_classads([ad])


def ad_from_packed(body: bytes, what: str = "ad") -> ClassAd:
    """The one ad of a packed body; WireError when it holds another number of ads."""
    ads = ads_from_packed(body, what)
    if len(ads) != 1:
        raise WireError(f"{what}: expected one ad, got {len(ads)}")
    return ads[0]


def ads_from_packed(body: bytes, what: str = "ad", stamp: ClassAd | None = None) -> list[ClassAd]:
    """The ads of a `pack_ads` body, each with `stamp`'s attributes set over its own,
    read in the core with no Python object made per attribute; a body that is not plain
    is a WireError naming the ad and the attribute."""
    try:
        return _core.ads_from_msgpack(body, stamp)
    except _core.AdReadError as e:
        raise _refused(e, what) from None


def packed_array(blobs: Sequence[bytes]) -> bytes:
    """Values each packed alone (maps: ads) as the body of one array, as `pack_ads`
    would have packed them together."""
    return struct.pack(">BI", 0xDD, len(blobs)) + b"".join(blobs)  # an array32


def map_pairs(m: Mapping[str, Any]) -> bytes:
    """A wire map's packed key-value pairs, without the map's header: parts of one map
    packed at different times, for `packed_map` to join."""
    body = dumps(m)
    first = body[0]
    return body[1:] if first & 0xF0 == 0x80 else body[3:] if first == 0xDE else body[5:]


def packed_map(count: int, *pairs: bytes) -> bytes:
    """One packed map of `count` key-value pairs, packed in parts (`map_pairs`) that
    share no key."""
    if count < 16:
        header = bytes([0x80 | count])
    elif count < 0x10000:
        header = struct.pack(">BH", 0xDE, count)
    else:
        header = struct.pack(">BI", 0xDF, count)
    return header + b"".join(pairs)


def ads_from_rows(blobs: Sequence[bytes], name_of: Callable[[int], str]) -> list[ClassAd]:
    """Ads each packed alone as one map (a job queue's rows), read in one call into the
    core as if they were one body; a bad one is a WireError under `name_of(its index)`
    (named only then: a million good rows make no names)."""
    body = packed_array(blobs)
    try:
        return _core.ads_from_msgpack(body)
    except _core.AdReadError as e:
        name = name_of(e.ad) if e.ad is not None and e.ad < len(blobs) else "the rows"
        raise _worded(e, name) from None


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLAIN = frozenset({bool, int, float, str})


def is_attr_name(name: str) -> bool:
    return bool(_NAME.fullmatch(name))
