"""condor_version: the HTCondor version condorx follows and the platform, as HTCondor prints
them (`$CondorVersion: ... $` and `$CondorPlatform: ... $`); scripts parse these lines.

The version is the one condorx's configuration reports (CONDOR_VERSION, and `version`
in `if` conditions: condorx.version.VERSION); the BuildID names condorx's own.
"""

from __future__ import annotations

from condorx.cli import args as a
from condorx.version import arch, opsys, platform_string, version_string

OPTIONS = [
    a.Opt("arch", 1, help="print only the architecture (e.g. X86_64)"),
    a.Opt("opsys", 1, help="print only the operating system (e.g. LINUX)"),
    a.Opt("syscall", 1, help="print the system call library's version (none: condorx has none)"),
]


# version.cpp: -h... exits 0, --help 1, on stderr.
@a.command(
    "condor_version",
    OPTIONS,
    "condor_version [-arch | -opsys | -syscall]",
    help_exit=(0, 1),
    help_to_stderr=True,
)
def main(ctx: a.Context) -> None:
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
