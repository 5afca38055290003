"""Built-in values: HTCondor's parameter table plus what the reader works out at run time.

The table (`_param_table.TABLE`) holds unexpanded defaults, so ``MaxVacateTime`` stays
``10 * $(MINUTE)`` and follows a configured ``MINUTE``. The run-time values describe the
process (``SUBSYSTEM``, ``IsSchedd``, ``PID``...) and the host (``FULL_HOSTNAME``,
``DETECTED_CPUS``...); they are computed only when asked for, so a tool that reads one
parameter does not pay for host detection.
"""

from __future__ import annotations

import _socket  # not socket: its enums were a tenth of a tool's start-up (transport.blocking)
import functools
import os
from collections.abc import Callable

from condorx.language.config._param_table import TABLE

# The subsystems that have an IsNAME flag in HTCondor's table.
FLAG_SUBSYSTEMS = (
    "COLLECTOR",
    "MASTER",
    "NEGOTIATOR",
    "SCHEDD",
    "SHADOW",
    "STARTD",
    "STARTER",
    "SUBMIT",
    "TOOL",
)

_UPPER_TABLE: dict[str, str] = {}


def table_value(name: str) -> str | None:
    """The built-in table's unexpanded default for a name (any case), or None."""
    if not _UPPER_TABLE:
        _UPPER_TABLE.update({k.upper(): v for k, v in TABLE.items()})
    return _UPPER_TABLE.get(name.upper())


@functools.cache
def _hostname() -> str:
    return _socket.gethostname()


@functools.cache
def _ip_address() -> str:
    try:
        return _socket.gethostbyname(_hostname())
    except OSError:
        return "127.0.0.1"


@functools.cache
def _memory_mb() -> str:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        return str(pages * size // (1024 * 1024))
    except (ValueError, OSError, AttributeError):
        return "0"


def _username() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return os.environ.get("USER", "")


def _arch() -> str:
    machine = os.uname().machine
    return {"x86_64": "X86_64", "amd64": "X86_64", "i686": "INTEL"}.get(machine.lower(), machine)


HOST_VALUES: dict[str, Callable[[], str]] = {
    "FULL_HOSTNAME": _hostname,
    "HOSTNAME": lambda: _hostname().split(".")[0],
    "IP_ADDRESS": _ip_address,
    "IPV4_ADDRESS": _ip_address,
    "IP_ADDRESS_IS_IPV6": lambda: "false",
    "PID": lambda: str(os.getpid()),
    "PPID": lambda: str(os.getppid()),
    "USERNAME": _username,
    "REAL_UID": lambda: str(os.getuid()),
    "REAL_GID": lambda: str(os.getgid()),
    "DETECTED_CPUS": lambda: str(os.cpu_count() or 1),
    "DETECTED_CORES": lambda: str(os.cpu_count() or 1),
    "DETECTED_PHYSICAL_CPUS": lambda: str(os.cpu_count() or 1),
    "DETECTED_MEMORY": _memory_mb,
    "ARCH": _arch,
    # os.uname, not the platform module: the same answers, without its import.
    "UNAME_ARCH": lambda: os.uname().machine,
    "OPSYS": lambda: os.uname().sysname.upper(),
    "OPSYSLEGACY": lambda: os.uname().sysname.upper(),
    "UNAME_OPSYS": lambda: os.uname().sysname,
}


def builtin(
    name: str,
    subsystem: str,
    local_name: str | None,
    config_root: str | None,
) -> str | None:
    """The built-in (unexpanded) value of a name for a process of `subsystem`."""
    key = name.upper()
    if key == "SUBSYSTEM":
        return subsystem
    if key == "LOCALNAME":
        return local_name or subsystem
    if key == "CONFIG_ROOT":
        return config_root
    if key.startswith("IS") and key[2:] in FLAG_SUBSYSTEMS:
        return "true" if key[2:] == subsystem.upper() else "false"
    if key == "ISWINDOWS":
        return "false"
    if key in HOST_VALUES:
        return HOST_VALUES[key]()
    return table_value(key)
