"""Job ads for the schedd tests, as condor_submit would send them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from condorx.transport.wire import Expr


def cluster(iwd: Path, **extra: Any) -> dict[str, Any]:
    ad: dict[str, Any] = {
        "Cmd": "/bin/sleep",
        "Args": "60",
        "Iwd": str(iwd),
        "JobUniverse": 5,
        "JobPrio": 0,
        "RequestCpus": 1,
        "RequestMemory": 128,
        "Requirements": Expr('(TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64")'),
        "OnExitRemove": True,
        "PeriodicHold": False,
        "PeriodicRelease": False,
        "PeriodicRemove": False,
    }
    ad.update(extra)
    return ad


def procs(n: int) -> list[dict[str, Any]]:
    return [{} for _ in range(n)]
