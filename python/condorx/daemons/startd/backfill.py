"""Backfill (manual 3.5.8.6): while a slot is otherwise idle and START_BACKFILL is true,
the startd keeps the machine busy with a backfill client, the seed's BOINC role.

The client is whatever the configuration names, HTCondor's way:

    ENABLE_BACKFILL   = True
    BACKFILL_SYSTEM   = BOINC
    BOINC_Executable  = /usr/bin/boinc_client
    BOINC_Arguments   = --dir /var/lib/boinc
    BOINC_InitialDir  = /var/lib/boinc
    BOINC_Output      = /var/log/boinc.out
    BOINC_Error       = /var/log/boinc.err

One client per startd, shared by every slot in Backfill ("only the first machine to enter
Backfill/Idle will cause a copy of the BOINC client to start running"). It runs in a
process group of its own, so killing it kills its descendants too; it is killed when the
last slot using it leaves Backfill, and when the startd dies (`lifeline`).
"""

from __future__ import annotations

import errno
import logging
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

import trio

from condorx.language.config import Config

log = logging.getLogger("condorx.startd")

# After a client fails to start, how long before trying again (not at every poll).
RETRY_AFTER = 60.0


@dataclass(frozen=True)
class ClientSpec:
    argv: list[str]
    cwd: str | None
    stdout: str | None
    stderr: str | None

    @classmethod
    def from_config(cls, cfg: Config) -> ClientSpec | None:
        """The configured client, or None when backfill is off or names none."""
        if not cfg.get_bool("ENABLE_BACKFILL", False):
            return None
        system = (cfg.get("BACKFILL_SYSTEM") or "").strip().upper()
        if system != "BOINC":
            if system:
                log.error("BACKFILL_SYSTEM = %s: only BOINC is known; backfill is off", system)
            return None
        exe = (cfg.get("BOINC_Executable") or "").strip()
        if not exe:
            log.error("ENABLE_BACKFILL is true but BOINC_Executable is not set; backfill is off")
            return None
        args = shlex.split(cfg.get("BOINC_Arguments") or "")
        return cls(
            [exe, *args],
            cfg.get("BOINC_InitialDir") or None,
            cfg.get("BOINC_Output") or None,
            cfg.get("BOINC_Error") or None,
        )


class BackfillClient:
    """The one backfill client of a startd, and which slots are using it."""

    def __init__(self, spec: ClientSpec | None, on_exit: Callable[[], None]) -> None:
        self.spec = spec
        self.on_exit = on_exit
        self.process: trio.Process | None = None
        self.users: set[str] = set()  # the slots in Backfill/Busy on it
        # The slots the client is being killed for (the last users): they stay in
        # Backfill/Killing until it is really gone.
        self.killed_for: set[str] = set()
        self.failed_at = 0.0
        self.exited = trio.Event()

    @property
    def enabled(self) -> bool:
        return self.spec is not None and time.monotonic() - self.failed_at >= RETRY_AFTER

    @property
    def running(self) -> bool:
        # Not `returncode`: that polls, and would let a policy pass see the client
        # gone before `_watch` has reaped it, logged it and cleared its users.
        return self.process is not None and not self.exited.is_set()

    async def join(self, slot: str, nursery: trio.Nursery) -> bool:
        """Use the client for `slot`, starting it if it is not running; False if it
        could not be started."""
        if self.killed_for:
            return False  # still dying: a new client once it is gone
        if not self.running:
            if not await self._start(nursery):
                return False
        self.users.add(slot)
        return True

    async def _start(self, nursery: trio.Nursery) -> bool:
        spec = self.spec
        if spec is None:
            return False
        out: IO[bytes] | int = subprocess.DEVNULL
        err: IO[bytes] | int = subprocess.DEVNULL
        try:
            out = open(spec.stdout, "ab") if spec.stdout else subprocess.DEVNULL
            err = open(spec.stderr, "ab") if spec.stderr else subprocess.DEVNULL
            if not os.access(spec.argv[0], os.X_OK):
                raise OSError(errno.EACCES, f"{spec.argv[0]} is not an executable")
            # On a lifeline: if this startd dies, even by kill -9, the client dies too.
            self.process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "condorx.daemons.startd.lifeline", *spec.argv],
                cwd=spec.cwd,
                stdin=subprocess.PIPE,  # ours alone: its end of file is our death
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own process group: killed with its children
            )
        except OSError as e:
            log.error("cannot start the backfill client %s: %s", spec.argv[0], e.strerror or e)
            self.failed_at = time.monotonic()
            return False
        finally:
            for f in (out, err):  # the client has its own copies
                if not isinstance(f, int):
                    f.close()
        log.info("backfill client started: %s (pid %d)", " ".join(spec.argv), self.process.pid)
        self.exited = trio.Event()
        nursery.start_soon(self._watch, self.process)
        return True

    async def _watch(self, process: trio.Process) -> None:
        code = await process.wait()
        log.info("backfill client (pid %d) exited with status %s", process.pid, code)
        self.users.clear()
        self.killed_for.clear()
        self.exited.set()
        self.on_exit()

    def leave(self, slot: str) -> bool:
        """`slot` stops using the client; True when the client is to be killed (it was
        the last user)."""
        self.users.discard(slot)
        if self.users or not self.running:
            return False
        self.killed_for.add(slot)
        return True

    def kill(self, sig: int = signal.SIGTERM) -> None:
        """Signal the client's whole process group."""
        if self.process is not None and self.process.returncode is None:
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                pass

    async def stop(self, grace: float) -> None:
        """Kill the client (soft, then hard after `grace` seconds) and wait for it."""
        if not self.running:
            return
        self.kill(signal.SIGTERM)
        with trio.move_on_after(grace):
            await self.exited.wait()
        if self.running:
            self.kill(signal.SIGKILL)
            await self.exited.wait()

    def uses(self, slot: str) -> bool:
        """Whether the slot still has the client: in use, or being killed for it."""
        return self.running and (slot in self.users or slot in self.killed_for)
