"""Where a startd's starters come from: a fork server that has imported the starter once.

A starter started as a fresh Python costs about 0.3 s of CPU and some 30 MiB of its own
(trio, the ClassAd core, the configuration tables), paid again for every claim. Forked
from a server that imported them once, a starter is running in milliseconds and shares
those pages with every other starter until it writes to them. multiprocessing's
forkserver does the forking: its server is a single-threaded process of its own (so
forking it is safe, which forking the startd, with its threads, would not be); it hands
the starter its end of a socket pair, and ends when the startd does."""

from __future__ import annotations

import functools
import multiprocessing
import socket
from multiprocessing import forkserver
from multiprocessing.process import BaseProcess

from condorx.daemons.starter import service

PRELOAD = [service.__name__]


@functools.cache
def _context() -> multiprocessing.context.ForkServerContext:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def warm() -> None:
    """Start the fork server now (blocking, so from a thread), not at the first claim."""
    _context()
    forkserver.ensure_running()


def process(sock: socket.socket, log_file: str | None) -> BaseProcess:
    """A starter that will speak its frames on `sock` (not yet started: `start()` blocks,
    so call it from a thread)."""
    return _context().Process(target=service.serve_socket, args=(sock, log_file), daemon=False)
