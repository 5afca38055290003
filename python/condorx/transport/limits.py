"""What a daemon grants a connection before and after it authenticates: how long the
handshake may take, how many connections one host and everyone may hold, how long an
authenticated connection may sit idle, and how large a message may be.

A stranger gets little: a frame of at most `wire.PRE_AUTH_FRAME` bytes, and
SEC_DEFAULT_AUTHENTICATION_TIMEOUT seconds (20, HTCondor's default) to finish the
handshake, after which the connection is closed."""

from __future__ import annotations

import resource
from dataclasses import dataclass

from condorx.language.config import Config
from condorx.transport import wire

# File descriptors kept for the daemon's own files, logs and outgoing connections.
_RESERVED_FDS = 128


@dataclass(frozen=True)
class Limits:
    max_frame: int = wire.MAX_FRAME  # after authentication (MAX_MESSAGE_SIZE)
    handshake_timeout: float = 20.0  # SEC_DEFAULT_AUTHENTICATION_TIMEOUT
    idle_timeout: float = 300.0  # IDLE_CONNECTION_TIMEOUT, unless a claim holds it
    max_connections: int = 4096  # MAX_CONNECTIONS, in all
    max_per_host: int = 2048  # MAX_CONNECTIONS_PER_HOST
    # Streams on one multiplexed connection (`condorx.transport.mux`): they cost no file, only a
    # little memory each, and one schedd may hold a claim on each of a big machine's (or
    # a simulator's) slots over one.
    max_streams: int = 262144  # MAX_STREAMS_PER_CONNECTION

    @classmethod
    def from_config(cls, cfg: Config) -> Limits:
        """The knobs, read as the daemon's subsystem (SCHEDD.MAX_CONNECTIONS works)."""
        total = cfg.get_int("MAX_CONNECTIONS", _fd_budget())
        return cls(
            max_frame=cfg.get_int("MAX_MESSAGE_SIZE", wire.MAX_FRAME),
            handshake_timeout=cfg.get_float("SEC_DEFAULT_AUTHENTICATION_TIMEOUT", 20.0),
            idle_timeout=cfg.get_float("IDLE_CONNECTION_TIMEOUT", 300.0),
            max_connections=total,
            # One host may take half, so that it cannot lock every other host out.
            max_per_host=cfg.get_int("MAX_CONNECTIONS_PER_HOST", max(1, total // 2)),
            max_streams=cfg.get_int("MAX_STREAMS_PER_CONNECTION", 262144),
        )


def _fd_budget() -> int:
    """As many connections as the process may open files, less what it needs itself."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 65536
    return max(64, soft - _RESERVED_FDS)
