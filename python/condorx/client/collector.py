"""Talking to the collector: advertising ads (daemons) and querying them (everyone).

A user's client (no credentials given) tries the collector's local Unix socket first, where
the kernel vouches for the user, as a schedd client does: a tool then needs no token, and
making one from the pool key loads cryptography on every run. A daemon's client proves the
pool identity over TCP, where the collector's host-based lists see its address.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from condorx.classad import ClassAd
from condorx.language.config import Config
from condorx.transport import locate, wire
from condorx.transport.connection import Address, Credentials, connect, user_credentials
from condorx.transport.protocol.collector import Advertise, Invalidate, QueryAds

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


class CollectorClient:
    def __init__(
        self, cfg: Config, creds: Credentials | None = None, address: str | None = None
    ) -> None:
        self.cfg = cfg
        self._creds = creds
        self.local = creds is None  # a user's client: the local socket first
        self.address = address

    @property
    def creds(self) -> Credentials:
        """What this client proves over TCP: a user's are found when first needed."""
        if self._creds is None:
            self._creds = user_credentials(self.cfg)
        return self._creds

    def _address(self) -> Address:
        text = self.address or locate.collector_address(self.cfg)
        if not text:
            raise wire.WireError("no collector found: is the pool running? (condorx pool up)")
        return Address.parse(text)

    async def _connect(self) -> wire.Channel:
        sock = locate.collector_socket(self.cfg)
        if self.local and self.address is None and os.path.exists(sock):
            # On the local socket the uid is the identity unless a token names someone else.
            creds = self.creds if os.environ.get("CONDORX_TOKEN") else Credentials()
            try:
                return await connect(Address(unix=sock), creds)
            except OSError:
                pass  # a socket left by a collector since gone: try its address
        addr = self._address()
        try:
            return await connect(addr, self.creds)
        except OSError as e:
            raise wire.WireError(f"cannot reach the collector at {addr}: {e}") from None

    @asynccontextmanager
    async def channel(self) -> AsyncIterator[wire.Channel]:
        ch = await self._connect()
        try:
            yield ch
        finally:
            await ch.aclose()

    async def advertise(self, ads: Sequence[dict[str, Any]]) -> None:
        async with self.channel() as ch:
            await ch.request(Advertise(wire.pack_ads(ads)).to_wire())

    async def advertise_packed(self, ads: Sequence[bytes]) -> None:
        """`advertise` of ads each packed alone (`wire.packed_array`)."""
        async with self.channel() as ch:
            await ch.request(Advertise(wire.packed_array(ads)).to_wire())

    async def invalidate(self, kind: str, names: Sequence[str]) -> None:
        async with self.channel() as ch:
            await ch.request(Invalidate(kind, list(names)).to_wire())

    async def withdraw(self, kind: str, names: Sequence[str]) -> None:
        """Drop a daemon's ads as it stops: a collector gone already is no error."""
        try:
            await self.invalidate(kind, names)
        except (OSError, wire.WireError):
            pass

    async def query_ads(self, kind: str, constraint: str | None = None) -> list[ClassAd]:
        out: list[ClassAd] = []
        async for chunk in self._stream(QueryAds(kind, constraint)):
            if not isinstance(chunk, bytes):
                raise wire.WireError("the collector sent ads that are not a packed body")
            out.extend(wire.ads_from_packed(chunk, "the collector's ad"))
        return out

    async def query_rows(
        self, kind: str, exprs: Sequence[str], constraint: str | None = None
    ) -> list[list[Any]]:
        out: list[list[Any]] = []
        async for chunk in self._stream(QueryAds(kind, constraint, list(exprs))):
            out.extend(chunk)
        return out

    async def _stream(self, req: QueryAds) -> AsyncIterator[Any]:
        async with self.channel() as ch:
            async for chunk in ch.streamed(req.to_wire()):
                yield chunk
