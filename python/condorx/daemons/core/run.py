"""Running one daemon as a process: its configuration (read as its subsystem), its log
(<SUBSYS>_LOG), and its `serve` under trio until it is stopped."""

from __future__ import annotations

import cProfile
import importlib
import logging
import os
import signal
import sys
from functools import partial
from pathlib import Path
from typing import Any

import trio

from condorx.daemons.core import collection, daemon_stats, task_dump, user_maps
from condorx.language.config import ConfigError, load_config
from condorx.transport import locate

# daemon name -> (subsystem, module holding `serve`)
DAEMONS = {
    "schedd": ("SCHEDD", "condorx.daemons.schedd.service"),
    "collector": ("COLLECTOR", "condorx.daemons.collector.service"),
    "negotiator": ("NEGOTIATOR", "condorx.daemons.negotiator.service"),
    "startd": ("STARTD", "condorx.daemons.startd.service"),
    "master": ("MASTER", "condorx.daemons.master.service"),
    "job_router": ("JOB_ROUTER", "condorx.daemons.job_router.service"),
    "defrag": ("DEFRAG", "condorx.daemons.defrag.service"),
    "sim": ("SIM", "condorx.sim.service"),  # simulated execute machines (condorx sim)
}


# A daemon that exits with this status asks its master not to start it again (HTCondor's
# DAEMON_NO_RESTART: a startd whose drain ends in exit).
DAEMON_NO_RESTART = 99
# One that exits with this asks to be started again at once (HTCondor's beginDaemonRestart:
# a startd whose drain ends in restart or reconfig).
DAEMON_RESTART = 98


def run(name: str, local_name: str | None = None) -> None:
    subsystem, module = DAEMONS[name]
    if any(w in ("--help", "-help", "-h") for w in sys.argv[1:]):
        # --help must never start a daemon: it says what the command is and stops. As
        # HTCondor's: a daemon's usage() exits 1 (schedd_main.cpp); the master's shell
        # sees 0 (its background child's status never reaches it).
        out = sys.stdout if name == "master" else sys.stderr
        print(f"Usage: condor_{name} [--help]\n", file=out)
        print(f"Runs the {name} daemon (subsystem {subsystem}) in the foreground, as the", file=out)
        print("configuration says (CONDORX_CONFIG, else CONDOR_CONFIG, else ~/.condorx);", file=out)
        print("it takes no other options. SIGTERM or SIGINT stops it.", file=out)
        if name != "master":
            sys.exit(1)
        return
    try:
        cfg = load_config(subsystem=subsystem, local_name=local_name)
    except ConfigError as e:
        print(f"condor_{name}: configuration error: {e}", file=sys.stderr)
        sys.exit(1)
    _log_to(name, cfg.get(f"{subsystem}_LOG"))
    _banner(name, subsystem)
    _audit_to(name, cfg.get(f"{subsystem}_AUDIT_LOG") or str(locate.audit_log(cfg)))
    user_maps.load(cfg, subsystem)  # for userMap() in its expressions
    daemon = importlib.import_module(module)
    serve: Any = daemon.serve
    # <SUBSYS>_PROFILE = file: the daemon runs under cProfile and leaves its statistics
    # there when it stops (for the benchmarks under benches/: where a daemon's time goes).
    profile = cfg.get(f"{subsystem}_PROFILE")
    if profile:
        profiler = cProfile.Profile()
        _profiling.append((profiler, profile))
        profiler.enable()
    collection.tune()
    collection.started()  # its modules and configuration
    try:
        # A daemon that stops in its own way on a signal (the startd's graceful, fast and
        # peaceful shutdowns) handles its signals itself.
        if getattr(daemon, "HANDLES_SIGNALS", False):
            trio.run(_answering_usr1, serve, cfg)
        else:
            trio.run(_until_signalled, partial(_answering_usr1, serve), cfg)
    except KeyboardInterrupt:
        pass
    except (ConfigError, BaseExceptionGroup) as e:
        # A daemon's own exit status (a drained startd's), out of the nursery it ended in.
        status = _exit_status(e)
        if status is not None:
            sys.exit(status)
        # A setting only the daemon itself reads (SIM_MACHINE_ADS) may be refused late.
        refused = _config_error(e)
        if refused is None:
            raise
        print(f"condor_{name}: configuration error: {refused}", file=sys.stderr)
        logging.getLogger(f"condorx.{name}").error("configuration error: %s", refused)
        sys.exit(1)
    finally:
        _dump_profile()
        collection.report()


def _exit_status(e: BaseException) -> Any:
    """The status of the SystemExit a group of them is made of, else None."""
    if not isinstance(e, BaseExceptionGroup) or e.split(SystemExit)[1] is not None:
        return None
    leaf: BaseException = e
    while isinstance(leaf, BaseExceptionGroup):
        leaf = leaf.exceptions[0]
    return leaf.code if isinstance(leaf, SystemExit) else None


def _config_error(e: BaseException) -> ConfigError | None:
    """The ConfigError `e` is, or the first of a group made only of them."""
    if isinstance(e, ConfigError):
        return e
    if isinstance(e, BaseExceptionGroup) and e.split(ConfigError)[1] is None:
        leaf: BaseException = e
        while isinstance(leaf, BaseExceptionGroup):
            leaf = leaf.exceptions[0]
        return leaf if isinstance(leaf, ConfigError) else None
    return None


# The profiler a daemon runs under, and where its statistics go (see <SUBSYS>_PROFILE).
_profiling: list[tuple[cProfile.Profile, str]] = []


def _dump_profile() -> None:
    """Leave the statistics, once: when the stop signal comes (a daemon with thousands
    of claims may take longer to wind down than whoever stops it waits), else at exit."""
    while _profiling:
        profiler, path = _profiling.pop()
        profiler.disable()
        profiler.dump_stats(path)


async def _answering_usr1(serve: Any, cfg: Any) -> None:
    """Serve; meanwhile SIGUSR1 writes where the daemon's tasks wait to its log, and the
    whole heap is walked for cyclic garbage every collection.SWEEP seconds."""
    daemon_stats.install(cfg)  # its duty cycle, for its ad
    async with trio.open_nursery() as nursery:
        nursery.start_soon(task_dump.on_signal)
        nursery.start_soon(collection.sweep)
        await serve(cfg)
        nursery.cancel_scope.cancel()


async def _until_signalled(serve: Any, cfg: Any) -> None:
    """Serve until SIGTERM or SIGINT (then let the daemon's tasks be cancelled cleanly),
    or until the daemon itself is done (a master told to shut down)."""
    async with trio.open_nursery() as nursery:

        async def serve_then_stop() -> None:
            await serve(cfg)
            nursery.cancel_scope.cancel()

        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            nursery.start_soon(serve_then_stop)
            async for _ in signals:
                _dump_profile()
                nursery.cancel_scope.cancel()
                return


def _log_to(name: str, path: str | None) -> None:
    fmt = "%(asctime)s %(levelname)s %(name)s %(message)s"
    # Where each call was made from, and its thread and process, are not in the format:
    # not looked up for each line (the logging HOWTO's "Optimization"). A simulator of
    # 100,000 slots logs about four lines per job; finding each line's caller cost a
    # quarter of its logging.
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    if path:
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            logging.basicConfig(level=logging.INFO, format=fmt, filename=path)
            return
        except OSError as e:
            print(f"condor_{name}: cannot write {path}: {e.strerror}", file=sys.stderr)
    logging.basicConfig(level=logging.INFO, format=fmt)


def _banner(name: str, subsystem: str) -> None:
    """HTCondor's start-up banner, which admins and condor_who -daemons read the daemon's
    pid from (`** PID = `)."""
    from condorx.version import BUILD_ID

    log = logging.getLogger(f"condorx.{name}")
    for line in (
        "*" * 54,
        f"** condor_{name} (CONDOR_{subsystem}) STARTING UP",
        f"** {' '.join(sys.orig_argv)}",
        f"** {BUILD_ID}",
        f"** PID = {os.getpid()}",
        "*" * 54,
    ):
        log.info("%s", line)


def _audit_to(name: str, path: str) -> None:
    """The audit log: one line per refused authentication or queue change, appended by
    every daemon that shares it (each line names its daemon)."""
    audit = logging.getLogger("condorx.audit")
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path)
    except OSError as e:
        print(f"condor_{name}: cannot write the audit log {path}: {e.strerror}", file=sys.stderr)
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    audit.addHandler(handler)
    audit.setLevel(logging.INFO)
