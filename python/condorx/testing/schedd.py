"""A real schedd process in a directory of its own, for tests and benchmarks: started,
killed with -9, restarted and stopped on demand."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import trio

from condorx import locate
from condorx.client.schedd import ScheddClient
from condorx.config import Config, load_config

CONFIG = """\
LOCAL_DIR = {dir}
SPOOL = $(LOCAL_DIR)/spool
LOG = $(LOCAL_DIR)/log
LOCK = $(LOCAL_DIR)/lock
NETWORK_INTERFACE = 127.0.0.1
SCHEDD_NAME = test-schedd@loopback
"""


class LocalSchedd:
    def __init__(self, root: Path, extra_config: str = "") -> None:
        self.root = root
        self.config_file = root / "condor_config"
        self.config_file.write_text(CONFIG.format(dir=root) + extra_config)
        self.env = {**os.environ, "CONDORX_CONFIG": str(self.config_file)}
        self.env.pop("CONDORX_TOKEN", None)
        self.proc: subprocess.Popen[bytes] | None = None
        self.cfg: Config = load_config(path=self.config_file, environ=self.env)
        self.address_file = locate.schedd_address_file(self.cfg)

    def start(self, timeout: float = 30.0) -> None:
        self.address_file.unlink(missing_ok=True)
        out = open(self.root / "schedd.out", "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "condorx.daemons.schedd"],
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while not self.address_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log = (self.root / "schedd.out").read_text()
                raise RuntimeError(f"the schedd did not start:\n{log}")
            time.sleep(0.05)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()

    def client(self, **kw: Any) -> ScheddClient:
        return ScheddClient(self.cfg, **kw)

    def call(self, fn: Any, *args: Any) -> Any:
        return trio.run(fn, *args)
