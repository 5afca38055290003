"""Daemons for tests, each a process of its own, forked from a server that has imported
the daemons' code once (as `tools` does for the command-line tools).

A fresh Python that imports a daemon costs about 0.25 s of CPU, and the suite starts
about 700 daemons: on two cores that CPU was taken from the daemons the tests wait on.
The child runs exactly what `python -m condorx.daemons NAME` runs (`daemons.run.run`),
with its own environment, working directory and standard streams. The benchmarks start
their daemons with `python -m` as users do (`LocalPool.fork_daemons` is off there): a
forked daemon's memory includes the pages of every daemon's modules.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from condorx.daemons.core.run import DAEMONS
from condorx.testing.tools import become

PRELOAD = ["condorx.daemons.core.run", *(module for _, module in DAEMONS.values())]


@functools.cache
def _forkserver() -> Any:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def _child(name: str, local: str | None, env: dict[str, str], cwd: str, log: str) -> None:
    """In the forked child: become the daemon's process, then run it."""
    become(env, cwd, log, log)
    sys.argv = ["condorx.daemons", name, *(["-local-name", local] if local else [])]
    from condorx.daemons.core.run import run

    run(name, local)


class ForkedDaemon:
    """A forked daemon, handled as `subprocess.Popen` handles a process."""

    def __init__(self, name: str, local: str | None, env: dict[str, str], log: Path) -> None:
        self.args = [name]
        self._proc = _forkserver().Process(
            target=_child, args=(name, local, dict(env), os.getcwd(), str(log))
        )
        self._proc.start()

    @property
    def pid(self) -> int:
        pid = self._proc.pid
        assert pid is not None
        return pid

    @property
    def returncode(self) -> int | None:
        return self._proc.exitcode

    def poll(self) -> int | None:
        return None if self._proc.is_alive() else self._proc.exitcode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        self._proc.join(timeout)
        if self._proc.exitcode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return self._proc.exitcode
