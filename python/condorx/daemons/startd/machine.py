"""What the startd measures of its machine: cpus, memory, disk, architecture, load and
how long the keyboard and console have been idle; and the custom resources (GPUs and
others) its configuration declares."""

from __future__ import annotations

import os
import platform
import shutil
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from condorx.language.config import Config

# HTCondor advertises a huge idle time when it cannot see any terminal.
NEVER_TOUCHED = 2**31 - 1


@dataclass(frozen=True)
class Resource:
    """A custom resource (MACHINE_RESOURCE_<name>): how many, and their identifiers when
    the configuration names them (MACHINE_RESOURCE_GPUs = CUDA0, CUDA1)."""

    name: str  # as advertised: GPUs, Cogs
    count: int
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Machine:
    hostname: str
    arch: str
    opsys: str
    cpus: int
    memory_mb: int
    disk_kb: int
    uid_domain: str = ""
    fs_domain: str = ""
    address: str = ""
    resources: tuple[Resource, ...] = ()
    startd_name: str = ""  # STARTD_NAME as HTCondor makes it a daemon name: NAME@host

    @property
    def slot_suffix(self) -> str:
        """What follows `slotN@` in a slot's name: the startd's name, else the host."""
        return self.startd_name or self.hostname


def detect(cfg: Config, execute: Path) -> Machine:
    hostname = cfg.get("FULL_HOSTNAME") or socket.getfqdn()
    cpus = cfg.get_int("NUM_CPUS", os.cpu_count() or 1)
    memory = cfg.get_int("MEMORY", _memory_mb())
    return Machine(
        hostname=hostname,
        arch=_arch(),
        opsys=cfg.get("OPSYS") or platform.system().upper(),
        cpus=max(1, cpus),
        memory_mb=max(1, memory),
        disk_kb=disk_kb(execute),
        uid_domain=cfg.get("UID_DOMAIN") or hostname,
        fs_domain=cfg.get("FILESYSTEM_DOMAIN") or hostname,
        resources=custom_resources(cfg),
        startd_name=daemon_name(cfg.get("STARTD_NAME") or "", hostname),
    )


def daemon_name(name: str, hostname: str) -> str:
    """HTCondor's build_valid_daemon_name: a name with no `@` is made `name@host`, so
    that several startds on one host (`-local-name`, each its STARTD_NAME) name their
    slots apart: slot1@STARTD2@host."""
    if not name:
        return ""
    return name if "@" in name else f"{name}@{hostname}"


_NOT_RESOURCES = ("MACHINE_RESOURCE_NAMES", "MACHINE_RESOURCE_INVENTORY_")


def custom_resources(cfg: Config) -> tuple[Resource, ...]:
    """The MACHINE_RESOURCE_<name> the configuration declares (only those MACHINE_RESOURCE_
    NAMES lists, when it is set), less OFFLINE_MACHINE_RESOURCE_<name>'s identifiers.
    GPUs is spelled so whatever the case of its knob, as HTCondor spells it."""
    wanted = {n.lower() for n in cfg.get_list("MACHINE_RESOURCE_NAMES")}
    out: list[Resource] = []
    for knob in cfg.names():
        upper = knob.upper()
        if not upper.startswith("MACHINE_RESOURCE_") or upper.startswith(_NOT_RESOURCES):
            continue
        name = knob[len("MACHINE_RESOURCE_") :]
        if not name or (wanted and name.lower() not in wanted):
            continue
        name = "GPUs" if name.lower() == "gpus" else name
        value = (cfg.get(knob) or "").strip()
        if value.isdigit():
            out.append(Resource(name, int(value)))
            continue
        offline = set(cfg.get_list(f"OFFLINE_MACHINE_RESOURCE_{name}"))
        ids = tuple(i for i in cfg.get_list(knob) if i not in offline)
        out.append(Resource(name, len(ids), ids))
    return tuple(out)


def _arch() -> str:
    m = platform.machine().lower()
    return {"x86_64": "X86_64", "amd64": "X86_64", "aarch64": "aarch64"}.get(m, m.upper())


def _memory_mb() -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 1024


def swap_free_kb() -> int:
    """VirtualMemory: the swap space free now, in KiB (0 when the machine has none)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("SwapFree:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def disk_kb(path: Path) -> int:
    path.mkdir(parents=True, exist_ok=True)
    return shutil.disk_usage(path).free // 1024


def load_avg() -> float:
    try:
        return round(os.getloadavg()[0], 3)
    except OSError:
        return 0.0


def idle_seconds(now: float | None = None) -> tuple[int, int]:
    """(KeyboardIdle, ConsoleIdle): seconds since a terminal or the console was used."""
    now = time.time() if now is None else now
    ttys = list(Path("/dev/pts").glob("[0-9]*")) + list(Path("/dev").glob("tty[0-9]*"))
    console = [Path("/dev/console")]
    return _since(now, ttys + console), _since(now, console)


def _since(now: float, paths: list[Path]) -> int:
    newest = 0.0
    for p in paths:
        try:
            newest = max(newest, p.stat().st_atime)
        except OSError:
            continue
    return NEVER_TOUCHED if newest == 0.0 else max(0, int(now - newest))
