"""Talking to this machine's master (condor_off, condor_on, condor_restart,
condor_reconfig, `condorx pool status`), on its local socket: the kernel says who asks."""

from __future__ import annotations

from typing import Any

from condorx import locate
from condorx.client.connection import Address, Credentials, call
from condorx.config import Config
from condorx.protocol.message import Message


async def command(cfg: Config, message: Message) -> dict[str, Any]:
    """Send one of `protocol.master`'s requests; its reply."""
    sock = locate.master_socket(cfg)
    if not sock.exists():
        raise OSError(f"no master is running here ({sock} does not exist)")
    return await call(Address(unix=sock), Credentials(), message)
