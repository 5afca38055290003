"""What a running job's process tree uses now, read from /proc: the attributes the
UPDATE_JOB_INFO hook is given (manual 4.4.2.5).

The job leads a session of its own (see launch.Process), so its tree is every process
of that session, however its processes regroup themselves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from condorx.host.procfs import stat_fields

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Usage:
    num_pids: int
    user_cpu: float  # seconds, the live processes' and the children they reaped
    sys_cpu: float
    image_kb: int  # virtual size of the live processes

    def attrs(self) -> dict[str, int | float]:
        return {
            "NumPids": self.num_pids,
            "RemoteUserCpu": round(self.user_cpu, 2),
            "RemoteSysCpu": round(self.sys_cpu, 2),
            "ImageSize": self.image_kb,
        }


def of_session(sid: int) -> Usage:
    """The usage of every live process in session `sid`."""
    pids = user = system = vsize = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = stat_fields(name)
        # After the command (which may hold spaces): state, ppid, pgrp, session, ...
        if fields is None or len(fields) < 21 or fields[3] != str(sid):
            continue
        pids += 1
        user += int(fields[11]) + int(fields[13])  # utime + cutime
        system += int(fields[12]) + int(fields[14])  # stime + cstime
        vsize += int(fields[20])
    return Usage(pids, user / _TICKS, system / _TICKS, vsize // 1024)
