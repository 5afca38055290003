"""The master: starts the daemons of DAEMON_LIST, restarts one that dies (waiting longer
after each quick death), and obeys condor_off, condor_on, condor_restart and
condor_reconfig. Stopping the master stops its daemons."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from condorx import version
from condorx.client.collector import CollectorClient
from condorx.daemons.core import daemon_stats
from condorx.daemons.core.advertiser import Advertiser
from condorx.daemons.core.run import DAEMON_NO_RESTART, DAEMON_RESTART, DAEMONS
from condorx.daemons.core.server import Handler, Peer, Server
from condorx.errors import Refusal, Refused
from condorx.language.config import Config, ConfigError, load_config
from condorx.transport import locate, wire
from condorx.transport.cedar import master as cedar_master
from condorx.transport.connection import daemon_credentials
from condorx.transport.protocol.master import (
    MasterStatus,
    Off,
    On,
    Reconfig,
    Reconfigured,
    Restart,
    Restarted,
    Started,
    Status,
    Stopped,
)
from condorx.transport.protocol.message import Message

log = logging.getLogger("condorx.master")


@dataclass
class Child:
    name: str
    wanted: bool = True
    process: trio.Process | None = None
    restarts: int = 0
    started: float = 0.0
    stopped: trio.Event = field(default_factory=trio.Event)


class Master:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.children: dict[str, Child] = {}
        self.nursery: trio.Nursery | None = None
        self.address = ""
        self.done = trio.Event()

    def daemon_list(self) -> list[str]:
        names = [n.lower() for n in self.cfg.get_list("DAEMON_LIST")]
        return [n for n in names if n != "master" and self.command(n) is not None]

    def log_skipped(self) -> None:
        """Say which DAEMON_LIST entries no daemon of condorx's runs (HTCondor's master
        logs one with no path, then stops; condorx's starts the rest)."""
        for name in self.cfg.get_list("DAEMON_LIST"):
            if name.lower() == "master" or self.command(name.lower()) is not None:
                continue
            path = self.cfg.get(name.upper())
            if not path:
                log.error(
                    "%s is in the DAEMON_LIST parameter, but there is no executable path"
                    " for it defined in the config files! It is not started.",
                    name.upper(),
                )
            else:
                log.error(
                    "%s is in the DAEMON_LIST parameter, but %s is not a daemon condorx"
                    " has: it is not started.",
                    name.upper(),
                    path,
                )

    def command(self, name: str) -> list[str] | None:
        """How the daemon `name` of DAEMON_LIST is run: one of ours by its name, or, as
        HTCondor's masters run a second negotiator, a name the configuration gives a
        daemon's program and arguments (`NEG2 = $(NEGOTIATOR)`, `NEG2_ARGS = -local-name
        NEG2`). None when it names no daemon condorx has."""
        if name in DAEMONS:
            return [name]
        program = Path(self.cfg.get(name.upper()) or "").name
        kind = program.removeprefix("condor_")
        if not program.startswith("condor_") or kind not in DAEMONS or kind == "master":
            return None
        return [kind, *(self.cfg.get(f"{name.upper()}_ARGS") or "").split()]

    def backoff(self, child: Child) -> float:
        """HTCondor's rule: constant * factor ** restarts, up to the ceiling."""
        constant = self.cfg.get_float("MASTER_BACKOFF_CONSTANT", 9.0)
        factor = self.cfg.get_float("MASTER_BACKOFF_FACTOR", 2.0)
        ceiling = self.cfg.get_float("MASTER_BACKOFF_CEILING", 3600.0)
        return float(min(ceiling, constant * factor ** max(0, child.restarts - 1)))

    # -- keeping children alive -------------------------------------------------------------

    def start(self, name: str) -> None:
        old = self.children.get(name)
        if old is not None and old.wanted:
            return
        # One still being stopped (condor_on right after condor_off) is not taken back:
        # a new one starts once it is gone.
        child = self.children[name] = Child(name)
        assert self.nursery is not None
        self.nursery.start_soon(self._keep, child, old)

    async def _keep(self, child: Child, old: Child | None = None) -> None:
        if old is not None:
            await old.stopped.wait()
        recover = self.cfg.get_float("MASTER_RECOVER_FACTOR", 300.0)
        while child.wanted:
            child.started = time.monotonic()
            command = self.command(child.name) or [child.name]
            child.process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "condorx.daemons", *command],
                env=dict(os.environ),
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            pid = child.process.pid
            log.info("started %s (pid %d)", child.name, pid)
            if not child.wanted:  # stopped while it was being spawned
                child.process.send_signal(signal.SIGTERM)
            try:
                code = await child.process.wait()
            finally:
                # Only a cancelled wait gets here with the daemon still running (the
                # master itself is going): it must never outlive the master.
                if child.process.returncode is None:
                    child.process.kill()
            # In HTCondor's words, which condor_who -daemons reads the exit status from.
            log.info("The %s (pid %d) exited with status %s", child.name.upper(), pid, code)
            child.process = None
            if code == DAEMON_NO_RESTART:
                log.info("%s exited and asked not to be started again", child.name)
                child.wanted = False
            if not child.wanted:
                break
            if code == DAEMON_RESTART:  # asked for: no failure, no back-off
                log.info("%s asked to be restarted", child.name)
                continue
            if time.monotonic() - child.started > recover:
                child.restarts = 0  # it ran long enough: forgive the past
            child.restarts += 1
            delay = self.backoff(child)
            log.warning(
                "%s exited (status %s); restart %d in %.0f s",
                child.name,
                code,
                child.restarts,
                delay,
            )
            await trio.sleep(delay)
        child.stopped.set()

    async def stop(self, name: str, mode: str = "graceful") -> None:
        """Stop a daemon: `graceful` (SIGTERM; the startd lets jobs retire first), `fast`
        (the startd kills its jobs at once, SIGQUIT; other daemons are killed) or
        `peaceful` (the startd lets its jobs finish, however long that takes, SIGUSR1).
        A daemon still running after SHUTDOWN_GRACEFUL_TIMEOUT (SHUTDOWN_FAST_TIMEOUT
        when fast; never when peaceful) is killed."""
        child = self.children.get(name)
        if child is None:
            return
        child.wanted = False
        proc = child.process
        if proc is not None:
            proc.send_signal(_stop_signal(name, mode))
            if mode == "peaceful":
                await proc.wait()
            wait = self.cfg.get_int(
                "SHUTDOWN_FAST_TIMEOUT" if mode == "fast" else "SHUTDOWN_GRACEFUL_TIMEOUT", 30
            )
            with trio.move_on_after(wait):
                await proc.wait()
            if proc.returncode is None:
                proc.kill()
        if self.children.get(name) is child:  # (not one condor_on started meanwhile)
            del self.children[name]

    # -- commands -------------------------------------------------------------------------

    def _names(self, req: Off | On | Restart) -> list[str]:
        wanted = [str(n).lower() for n in req.daemons or []] or self.daemon_list()
        bad = [n for n in wanted if n == "master" or self.command(n) is None]
        if bad:
            raise Refused(Refusal.BAD_REQUEST, f"not a daemon the master runs: {', '.join(bad)}")
        return [str(n) for n in wanted]

    async def off(self, peer: Peer, req: Off, ch: wire.Channel) -> Stopped:
        names = self._names(req)
        for n in names:
            await self.stop(n, _mode(req))
        if req.master:
            self.done.set()
        return Stopped(names)

    async def on(self, peer: Peer, req: On, ch: wire.Channel) -> Started:
        names = self._names(req)
        for n in names:
            self.start(n)
        return Started(names)

    async def restart(self, peer: Peer, req: Restart, ch: wire.Channel) -> Restarted:
        names = self._names(req)
        for n in names:
            await self.stop(n)
            self.start(n)
        return Restarted(names)

    async def reconfig(self, peer: Peer, req: Reconfig, ch: wire.Channel) -> Reconfigured:
        """Read the configuration again; daemons added to DAEMON_LIST start, removed ones
        stop, and the rest restart so that they read it too."""
        try:
            self.cfg = load_config(subsystem="MASTER")
        except ConfigError as e:
            raise Refused(Refusal.BAD_REQUEST, f"the new configuration is refused: {e}") from None
        wanted = self.daemon_list()
        self.log_skipped()
        for name in list(self.children):
            if name not in wanted:
                await self.stop(name)
        for name in wanted:
            if name in self.children:
                await self.stop(name)
            self.start(name)
        return Reconfigured(wanted)

    async def status(self, peer: Peer, req: Status, ch: wire.Channel) -> MasterStatus:
        return MasterStatus(
            {
                n: {"pid": c.process.pid if c.process else None, "restarts": c.restarts}
                for n, c in self.children.items()
            }
        )

    def handlers(self) -> dict[type[Message], Handler]:
        return {
            Off: self.off,
            On: self.on,
            Restart: self.restart,
            Reconfig: self.reconfig,
            Status: self.status,
        }

    def ad(self) -> dict[str, Any]:
        interval = max(1, self.cfg.get_int("MASTER_UPDATE_INTERVAL", 300))
        return {
            "MyType": "DaemonMaster",
            "Name": f"master@{locate.advertised_host('')}",
            "MyAddress": self.address,
            "ClassAdLifetime": interval * 3,
            "DaemonList": ", ".join(self.daemon_list()),
            "Machine": self.cfg.get("FULL_HOSTNAME") or "",
            **version.stamp(),
            **daemon_stats.ad(),
        }


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    master = Master(cfg)
    server = Server.for_daemon("master", master.handlers(), cfg, cedar_master.commands())
    async with trio.open_nursery() as nursery:
        master.nursery = nursery
        # Its address file once its daemons are started: that says the pool is up.
        master.address = await server.listen(nursery, 0, unix=Path(locate.master_socket(cfg)))
        # The collector first, so that the others find it when they start.
        names = master.daemon_list()
        master.log_skipped()
        if "collector" in names:
            master.start("collector")
            with trio.move_on_after(15):
                while not Path(locate.collector_address_file(cfg)).exists():
                    await trio.sleep(0.05)
        for name in names:
            master.start(name)
        locate.write_address(locate.master_address_file(cfg), master.address)
        # The collector may be starting with us: the first update waits a moment.
        server.show(lambda: [master.ad()])
        advertiser = Advertiser(
            CollectorClient(cfg, daemon_credentials(cfg)),
            lambda: [master.ad()],
            cfg.get_int("MASTER_UPDATE_INTERVAL", 300),
            first_delay=2.0,
        )
        await nursery.start(advertiser.run)
        task_status.started(master.address)
        try:
            await master.done.wait()
        finally:
            with trio.CancelScope(shield=True):
                for name in list(master.children):
                    await master.stop(name)
                Path(locate.master_address_file(cfg)).unlink(missing_ok=True)
            nursery.cancel_scope.cancel()


def _mode(req: Off) -> str:
    if req.fast:
        return "fast"
    return "peaceful" if req.peaceful else "graceful"


def _stop_signal(name: str, mode: str) -> int:
    if name == "startd":
        return {"fast": signal.SIGQUIT, "peaceful": signal.SIGUSR1}.get(mode, signal.SIGTERM)
    return signal.SIGKILL if mode == "fast" else signal.SIGTERM
