"""Another condorx pool's schedd, as a grid resource (`condor <schedd> <collector>`): where
it is, and how this schedd proves who it is to it.

The remote schedd is found by name in the remote pool's collector. This schedd
authenticates with a token the remote pool's admin made for it (`condor_token_create
-identity <name>` in that pool), kept in GRIDMANAGER_TOKEN_DIRECTORY: the remote jobs are
owned by that identity, and only it may act on them. Several pools' tokens may sit in the
directory; the first one a remote schedd accepts is remembered for it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from condorx.client.collector import CollectorClient
from condorx.client.schedd import ScheddClient
from condorx.language.config import Config
from condorx.transport import locate, security, wire
from condorx.transport.connection import Credentials
from condorx.transport.session import Policy

log = logging.getLogger("condorx.gridmanager")


class RemoteUnavailable(Exception):
    """The remote schedd cannot be found or reached, or accepts none of our tokens."""


@dataclass(frozen=True)
class Resource:
    """A `condor <schedd> <collector>` GridResource."""

    schedd: str
    collector: str

    @classmethod
    def parse(cls, text: object) -> Resource | None:
        if not isinstance(text, str):
            return None
        parts = text.split()
        if len(parts) != 3 or parts[0].lower() != "condor":
            return None
        return cls(parts[1], parts[2])

    def __str__(self) -> str:
        return f"condor {self.schedd} {self.collector}"


def tokens(cfg: Config) -> list[str]:
    def unreadable(path: str, why: str) -> None:
        log.warning("cannot read the grid token %s: %s", path, why)

    return [t for t in locate.token_files(locate.grid_token_dir(cfg), unreadable) if t]


class Remote:
    """One remote schedd: its address (looked up again when it stops answering) and the
    token it accepts."""

    def __init__(self, cfg: Config, resource: Resource) -> None:
        self.cfg = cfg
        self.resource = resource
        self.address: str | None = None
        self.token: str | None = None

    async def client(self) -> ScheddClient:
        """A client for the remote schedd, authenticated (tried once per token if need be)."""
        if self.address is None:
            self.address = await self._lookup()
        if self.token is not None:
            return self._client(self.token)
        refused = []
        for token in tokens(self.cfg):
            client = self._client(token)
            try:
                async with client.channel():
                    pass
            except wire.RemoteError as e:
                if e.kind != "authentication":
                    raise
                refused.append(str(e))
                continue
            except (OSError, wire.WireError) as e:
                self.address = None
                raise RemoteUnavailable(f"cannot reach {self.resource.schedd}: {e}") from None
            self.token = token
            return client
        where = locate.grid_token_dir(self.cfg)
        why = "; ".join(refused) if refused else f"no token in {where}"
        raise RemoteUnavailable(f"{self.resource.schedd} accepts none of our tokens ({why})")

    @property
    def identity(self) -> str:
        """Who the remote schedd knows us as (the owner of our jobs there)."""
        if self.token is None:
            raise RemoteUnavailable(f"not authenticated to {self.resource.schedd} yet")
        try:
            return security.parse_token(self.token)[0]
        except security.AuthError as e:
            raise RemoteUnavailable(str(e)) from None

    def forget(self) -> None:
        """The schedd did not answer: look it up again next time (it may have moved)."""
        self.address = None

    def _client(self, token: str) -> ScheddClient:
        assert self.address is not None
        return ScheddClient(
            self.cfg,
            address=self.address,
            creds=Credentials(token=token, policy=Policy.from_config(self.cfg)),
        )

    async def _lookup(self) -> str:
        collector = CollectorClient(self.cfg, Credentials(), address=self.resource.collector)
        constraint = f"Name == {wire.value_to_wire_text(self.resource.schedd)}"
        try:
            rows = await collector.query_rows("scheduler", ["MyAddress"], constraint)
        except (OSError, wire.WireError, wire.RemoteError) as e:
            raise RemoteUnavailable(
                f"cannot ask the collector {self.resource.collector} for "
                f"{self.resource.schedd}: {e}"
            ) from None
        for (address,) in rows:
            if isinstance(address, str) and address:
                return address
        raise RemoteUnavailable(
            f"the collector {self.resource.collector} knows no schedd {self.resource.schedd}"
        )
