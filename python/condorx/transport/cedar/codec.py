"""CEDAR's encoding of values inside a message (HTCondor's `Stream`).

- Every integer is 8 bytes, big-endian, two's complement; `char` is one byte.
- A double is two integers: its mantissa scaled to 2**31 - 1, and its exponent.
- A string in the clear is its bytes and a NUL (a lone 0xff is NULL); on an encrypted
  stream it is an 8-byte length that counts the NUL, then the bytes and the NUL.
- A ClassAd is a count, one `Name = expr` string (old syntax) per attribute, and two
  trailing strings (MyType and TargetType); the core writes and parses the attributes.

A `Reader` walks one whole message; running past its end is a `CedarError`, never a
partial value.
"""

from __future__ import annotations

import math
import struct

from condorx import _core
from condorx.classad import ClassAd
from condorx.errors import CondorxError

_INT = struct.Struct(">q")
_NULL = 0xFF
_DOUBLE_SCALE = 2147483647
# A reader accepts at most this many expressions in one ad (HTCondor's own bound), and
# before authentication far fewer, all literals.
MAX_EXPRS = 1_000_000
PRE_AUTH_EXPRS = 100
# Longest string accepted on an encrypted stream (HTCondor's bound).
MAX_STRING = 10_000_000


class CedarError(CondorxError):
    """A peer's message does not hold what the protocol says it must."""


class Reader:
    """The values of one message, in order."""

    def __init__(self, data: bytes, encrypted: bool = False) -> None:
        self.data = data
        self.pos = 0
        self.encrypted = encrypted

    def at_end(self) -> bool:
        return self.pos >= len(self.data)

    def _take(self, n: int, what: str) -> bytes:
        end = self.pos + n
        if end > len(self.data):
            raise CedarError(f"the message ended inside {what}")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def integer(self) -> int:
        return int(_INT.unpack(self._take(8, "an integer"))[0])

    def take(self, n: int) -> bytes:
        """`n` raw bytes (put_bytes: the length travelled before them)."""
        if n < 0 or n > MAX_STRING:
            raise CedarError(f"a byte string of {n} bytes")
        return self._take(n, "a byte string")

    def char(self) -> int:
        return self._take(1, "a character")[0]

    def double(self) -> float:
        frac, exp = self.integer(), self.integer()
        try:
            return math.ldexp(frac / _DOUBLE_SCALE, exp)
        except OverflowError:
            raise CedarError(f"a double out of range (exponent {exp})") from None

    def string(self) -> str | None:
        if self.encrypted:
            n = self.integer()
            if n < 0 or n > MAX_STRING:
                raise CedarError(f"a string of {n} bytes")
            raw = self._take(n, "a string")
            if raw[:1] == b"\xff":
                return None
            return raw.rstrip(b"\0").decode("utf-8", "replace") if n else ""
        if self.at_end():
            raise CedarError("the message ended where a string was expected")
        if self.data[self.pos] == _NULL:
            self.pos += 1
            return None
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise CedarError("a string without its terminating NUL")
        raw = self.data[self.pos : end]
        self.pos = end + 1
        return raw.decode("utf-8", "replace")

    def rest(self) -> bytes:
        """The message's remaining bytes (code_bytes: raw, no length before them)."""
        chunk = self.data[self.pos :]
        self.pos = len(self.data)
        return chunk

    def text(self) -> str:
        """A string that must not be NULL."""
        s = self.string()
        return "" if s is None else s

    def classad(self, limit: int = MAX_EXPRS, literals_only: bool = False) -> ClassAd:
        n = self.integer()
        if n < 0 or n > limit:
            raise CedarError(f"a ClassAd claiming {n} expressions (at most {limit})")
        lines = []
        for _ in range(n):
            line = self.text()
            if line == "ZKM":
                raise CedarError("a private attribute where none is accepted")
            lines.append(line)
        my_type, target_type = self.text(), self.text()
        try:
            ad = _core.cedar_get_ad(lines, literals_only)
        except ValueError as e:  # ClassAdParseError too: it names the attribute
            raise CedarError(f"a ClassAd that does not parse: {e}") from None
        if my_type and "MyType" not in ad:
            ad["MyType"] = my_type
        if target_type and "TargetType" not in ad:
            ad["TargetType"] = target_type
        return ad


class Writer:
    """The values of one message, appended in order."""

    def __init__(self, encrypted: bool = False) -> None:
        self.buf = bytearray()
        self.encrypted = encrypted

    def integer(self, value: int) -> Writer:
        self.buf += _INT.pack(value)
        return self

    def char(self, value: int) -> Writer:
        self.buf.append(value & 0xFF)
        return self

    def double(self, value: float) -> Writer:
        if value == 0 or not math.isfinite(value):
            frac, exp = 0.0, 0
        else:
            frac, exp = math.frexp(value)
        return self.integer(int(frac * _DOUBLE_SCALE)).integer(exp)

    def string(self, value: str | None) -> Writer:
        raw = b"\xff" if value is None else value.encode()
        if self.encrypted:
            self.integer(len(raw) + 1)
        self.buf += raw + b"\0" if value is not None or self.encrypted else raw
        return self

    def classad(
        self, ad: ClassAd, projection: list[str] | None = None, types: bool = True
    ) -> Writer:
        """The ad; without its two trailing strings (MyType, TargetType) when `types`
        is false, as HTCondor's getClassAdNoTypes readers expect."""
        data = put_ads([ad], self.encrypted, projection)[0]
        if not types:  # the two empty strings: NULs, or 8-byte lengths and NULs
            data = data[: -(18 if self.encrypted else 2)]
        self.buf += data
        return self

    def raw(self, data: bytes) -> Writer:
        self.buf += data
        return self

    def bytes(self) -> bytes:
        return bytes(self.buf)


def put_ads(
    ads: list[ClassAd], encrypted: bool, projection: list[str] | None = None
) -> list[bytes]:
    """Each ad as the bytes of a CEDAR ad message (only `projection`'s attributes when
    given), written in the core."""
    return list(_core.cedar_put_ads(ads, encrypted, projection))
