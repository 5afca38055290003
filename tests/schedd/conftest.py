"""A real schedd on loopback, started and stopped by the fixture (and killed with -9 by tests
that need it), with its own LOCAL_DIR and configuration file."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from condorx.testing.pool import wait_for as testing_wait_for
from condorx.testing.schedd import LocalSchedd

EXTRA = """\
PERIODIC_EXPR_INTERVAL = 1
QUEUE_SUPER_USERS = root, queueadmin
MAX_MESSAGE_SIZE = 1048576
"""


class RunningSchedd(LocalSchedd):
    def __init__(self, root: Path) -> None:
        super().__init__(root, EXTRA)

    def cli(  # type: ignore[override] - takes a tool name, as a user types it
        self,
        *argv: str,
        check: bool = True,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        module, func = TOOLS[argv[0]]
        return super().cli(
            f"{module}:{func}", *argv[1:], check=check, env=env, cwd=cwd, name=argv[0]
        )


TOOLS = {
    "condor_submit": ("condorx.cli.submit", "main"),
    "condor_token_create": ("condorx.cli.token", "create"),
    "condor_q": ("condorx.cli.q", "main"),
    "condor_rm": ("condorx.cli.act", "rm"),
    "condor_hold": ("condorx.cli.act", "hold"),
    "condor_release": ("condorx.cli.act", "release"),
    "condor_history": ("condorx.cli.history", "main"),
    "condor_qedit": ("condorx.cli.edit", "qedit"),
    "condor_prio": ("condorx.cli.edit", "prio"),
}


@pytest.fixture
def schedd(tmp_path: Path) -> Iterator[RunningSchedd]:
    s = RunningSchedd(tmp_path)
    try:
        s.start()
        yield s
    finally:
        s.stop()


def wait_for(predicate: Any, what: str, timeout: float = 20.0) -> Any:
    """Poll until `predicate()` is truthy (for the periodic loop); fails after `timeout`."""
    return testing_wait_for(predicate, what, timeout)
