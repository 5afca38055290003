"""The HTCondor version condorx follows and the platform, as HTCondor writes them
(`$CondorVersion: ... $`, `$CondorPlatform: ... $`): condor_version prints them, every
daemon's ad carries them (CondorVersion, CondorPlatform), and HTCondor's clients read
the version to decide what to send.

`VERSION` is also the one condorx's configuration reports (CONDOR_VERSION, and
`version` in `if` conditions); the BuildID names condorx's own.
"""

from __future__ import annotations

import os
from functools import cache

VERSION = (25, 14, 1)  # the HTCondor version whose behaviour condorx follows
BUILD_DATE = "2026-09-24"  # the release date of the HTCondor version followed
BUILD_ID = "condorx-0.1.0"


@cache
def version_string() -> str:
    text = ".".join(map(str, VERSION))
    return f"$CondorVersion: {text} {BUILD_DATE} BuildID: {BUILD_ID} $"


def arch() -> str:
    machine = os.uname().machine.upper()
    return {"AMD64": "X86_64", "ARM64": "AARCH64", "I686": "INTEL"}.get(machine, machine)


def opsys() -> str:
    return {"Darwin": "MACOSX"}.get(os.uname().sysname, "LINUX")


def distro() -> str:
    """`Ubuntu_22.04`, `AlmaLinux_9.4`, ... as HTCondor names the platform it was built on."""
    import platform  # (its import is a millisecond of every tool's start)

    try:
        info = platform.freedesktop_os_release()
    except OSError:
        return os.uname().sysname
    name = info.get("NAME", "Linux").split()[0]
    return f"{name}_{info['VERSION_ID']}" if info.get("VERSION_ID") else name


@cache
def platform_string() -> str:
    return f"$CondorPlatform: {arch()}-{distro()} $"


def stamp() -> dict[str, str]:
    """What every daemon's ad says of its version (HTCondor's clients read it)."""
    return {"CondorVersion": version_string(), "CondorPlatform": platform_string()}
