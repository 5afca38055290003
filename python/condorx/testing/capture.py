"""What crosses a network link, as a packet capture would show it: every frame seen on
the named interfaces (AF_PACKET, so root only), gathered by a thread until stopped. Tests
use it to show what a stranger on the wire between two hosts can read."""

from __future__ import annotations

import selectors
import socket
import threading

_ETH_P_ALL = 0x0003


class Capture:
    def __init__(self, interfaces: list[str]) -> None:
        self._socks = []
        for name in interfaces:
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(_ETH_P_ALL))
            sock.bind((name, 0))
            self._socks.append(sock)
        self._frames: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with selectors.DefaultSelector() as sel:
            for sock in self._socks:
                sel.register(sock, selectors.EVENT_READ)
            while not self._stop.is_set():
                for key, _ in sel.select(timeout=0.1):
                    self._frames.append(key.fileobj.recv(65536))  # type: ignore[union-attr]

    def stop(self) -> bytes:
        """Everything seen, frames end to end (headers included)."""
        self._stop.set()
        self._thread.join()
        for sock in self._socks:
            sock.close()
        return b"".join(self._frames)
