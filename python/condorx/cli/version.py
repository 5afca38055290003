"""condor_version: the HTCondor version condorx follows and the platform, as HTCondor prints
them (`$CondorVersion: ... $` and `$CondorPlatform: ... $`); scripts parse these lines.

The version is the one condorx's configuration reports (CONDOR_VERSION, and `version`
in `if` conditions: condorx.config.conditions.VERSION); the BuildID names condorx's own.
"""

from __future__ import annotations

import platform

import click

from condorx.cli import args as a
from condorx.config.conditions import VERSION

BUILD_DATE = "2026-09-24"  # the release date of the HTCondor version followed
BUILD_ID = "condorx-0.1.0"
OPTIONS = [
    a.Opt("arch", 1, help="print only the architecture (e.g. X86_64)"),
    a.Opt("opsys", 1, help="print only the operating system (e.g. LINUX)"),
    a.Opt("syscall", 1, help="print the system call library's version (none: condorx has none)"),
]


def version_string() -> str:
    text = ".".join(map(str, VERSION))
    return f"$CondorVersion: {text} {BUILD_DATE} BuildID: {BUILD_ID} $"


def arch() -> str:
    machine = platform.machine().upper()
    return {"AMD64": "X86_64", "ARM64": "AARCH64", "I686": "INTEL"}.get(machine, machine)


def opsys() -> str:
    return {"Darwin": "MACOSX", "Windows": "WINDOWS"}.get(platform.system(), "LINUX")


def distro() -> str:
    """`Ubuntu_22.04`, `AlmaLinux_9.4`, ... as HTCondor names the platform it was built on."""
    try:
        info = platform.freedesktop_os_release()
    except OSError:
        return platform.system()
    name = info.get("NAME", "Linux").split()[0]
    return f"{name}_{info['VERSION_ID']}" if info.get("VERSION_ID") else name


def platform_string() -> str:
    return f"$CondorPlatform: {arch()}-{distro()} $"


@a.command("condor_version", OPTIONS, "condor_version [-arch | -opsys | -syscall]")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Print the HTCondor version and platform (HTCondor's condor_version)."""
    opts = a.parsed(ctx)
    if "arch" in opts.flags:
        print(arch())
    elif "opsys" in opts.flags:
        print(opsys())
    elif "syscall" in opts.flags:
        print("$CondorSyscallLibVersion: none $")
    else:
        print(version_string())
        print(platform_string())


if __name__ == "__main__":
    main()
