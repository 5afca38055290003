"""Talking to a negotiator."""

from __future__ import annotations

from condorx.client.collector import CollectorClient
from condorx.language.config import Config
from condorx.transport import locate
from condorx.transport.connection import Address, Credentials, call, user_credentials
from condorx.transport.protocol.negotiator import EditUser, GetPriorities, Priorities, Reschedule


async def reschedule(address: Address, creds: Credentials) -> None:
    """Ask for a negotiation cycle now (condor_reschedule)."""
    await call(address, creds, Reschedule())


async def find(cfg: Config, name: str | None = None) -> Address:
    """The negotiator: this machine's, else the one the collector knows (by `name`)."""
    if name is None:
        try:
            return Address.parse(locate.read(locate.negotiator_address_file(cfg)))
        except (OSError, ValueError):
            pass
    constraint = f'Name == "{name}"' if name else None
    ads = await CollectorClient(cfg).query_ads("negotiator", constraint)
    for ad in ads:
        address = ad.get("MyAddress")
        if isinstance(address, str):
            return Address.parse(address)
    raise OSError(f"Can't locate negotiator {name or ''}".rstrip() + " in local pool")


async def priorities(cfg: Config, name: str | None = None) -> Priorities:
    address = await find(cfg, name)
    return Priorities.from_wire(await call(address, user_credentials(cfg), GetPriorities()))


async def edit_user(
    cfg: Config, action: str, user: str = "", value: float | None = None, name: str | None = None
) -> None:
    address = await find(cfg, name)
    await call(address, user_credentials(cfg), EditUser(action, user, value))
