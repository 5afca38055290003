"""An ad kept packed between the moments it is read.

A decoded ad is the core's map of parsed expressions: a 50-attribute slot ad takes about
5.1 KiB so, and about 1 KiB packed. A schedd holds one slot ad per claim for as long as
the claim lasts (100,000 of them in a large pool) but reads it only when a job ends, to
match the next; decoding it then (about 10 microseconds) is the cheaper trade.
"""

from __future__ import annotations

from typing import Any

from condorx.classad import ClassAd
from condorx.transport import wire


class PackedAd:
    """One ad, packed; `ad()` decodes a fresh copy each time it is called."""

    __slots__ = ("body",)

    def __init__(self, body: bytes) -> None:
        self.body = body

    @classmethod
    def of(cls, ad: ClassAd) -> PackedAd:
        return cls(wire.pack_ad(ad))

    @classmethod
    def from_wire(cls, data: Any, what: str = "ad") -> PackedAd:
        """A peer's wire map, checked as `wire.ad_from_wire` checks it (a WireError naming
        the attribute), then packed."""
        return cls.of(wire.ad_from_wire(data, what))

    def ad(self) -> ClassAd:
        return wire.ad_from_packed(self.body)
