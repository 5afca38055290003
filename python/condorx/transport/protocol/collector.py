"""The collector's requests."""

from __future__ import annotations

from condorx.record import field, record
from condorx.transport.protocol.message import Message

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Advertise(Message):
    """Store (or refresh) ads, each keyed by its MyType and Name. The ads travel as one
    msgpack body (`wire.pack_ads`), which the collector reads in the core."""

    command = "advertise"
    ads: bytes


@record(frozen=True)
class Invalidate(Message):
    """Drop the ads of one type with these names (a daemon going away)."""

    command = "invalidate"
    type: str
    names: list[Any] = field(default_factory=list)


@record(frozen=True)
class QueryAds(Message):
    """The ads of a type (all types when empty) that match `constraint`: whole (each
    chunk one packed body, `wire.ads_from_packed`), or the values of `exprs` in each;
    streamed in chunks."""

    command = "query"
    type: str = ""
    constraint: Any = None
    exprs: list[Any] | None = None
    # Whole ads in HTCondor's wire form (`cedar.codec`), "clear" or "encrypted" strings,
    # with only the `projection`'s attributes when one is given: for the CEDAR face.
    cedar: str | None = None
    projection: list[Any] | None = None
