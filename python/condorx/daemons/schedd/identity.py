"""Who a schedd is, read once from its configuration: the name and UID domain its jobs
and ads carry, its address once it listens, and SCHEDD_INTERVAL (how often it says so
to the collector, and how far ahead a cron job counts as due)."""

from __future__ import annotations

import socket
from dataclasses import dataclass

from condorx.language.config import Config


@dataclass
class Identity:
    name: str
    uid_domain: str
    interval: int
    address: str = ""  # "<host:port>", set once the schedd listens

    @classmethod
    def from_config(cls, cfg: Config) -> Identity:
        host = cfg.get("FULL_HOSTNAME") or socket.getfqdn()
        return cls(
            name=cfg.get("SCHEDD_NAME") or host,
            uid_domain=cfg.get("UID_DOMAIN") or host,
            interval=cfg.get_int("SCHEDD_INTERVAL", 300),
        )
