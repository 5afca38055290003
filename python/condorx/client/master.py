"""Talking to this machine's master (condor_off, condor_on, condor_restart,
condor_reconfig, `condorx pool status`), on its local socket: the kernel says who asks."""

from __future__ import annotations

import os
from typing import Any

from condorx.language.config import Config
from condorx.transport import locate
from condorx.transport.connection import Address, Credentials, call
from condorx.transport.protocol import master as m
from condorx.transport.protocol.message import Message


async def status(cfg: Config) -> dict[str, Any]:
    """The master's daemons: name -> {"pid", "restarts"}."""
    return m.MasterStatus.from_wire(await _call(cfg, m.Status())).daemons


async def off(cfg: Config, req: m.Off) -> list[str]:
    """The daemons stopped."""
    return [str(n) for n in m.Stopped.from_wire(await _call(cfg, req)).stopped]


async def on(cfg: Config, daemons: list[str] | None) -> list[str]:
    return [str(n) for n in m.Started.from_wire(await _call(cfg, m.On(daemons))).started]


async def restart(cfg: Config, daemons: list[str] | None) -> list[str]:
    reply = await _call(cfg, m.Restart(daemons))
    return [str(n) for n in m.Restarted.from_wire(reply).restarted]


async def reconfig(cfg: Config) -> list[str]:
    """The daemons the new configuration runs."""
    return [str(n) for n in m.Reconfigured.from_wire(await _call(cfg, m.Reconfig())).daemons]


async def _call(cfg: Config, message: Message) -> dict[str, Any]:
    sock = locate.master_socket(cfg)
    if not os.path.exists(sock):
        raise OSError(f"no master is running here ({sock} does not exist)")
    return await call(Address(unix=sock), Credentials(), message)
