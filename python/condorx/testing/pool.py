"""Real daemon processes sharing one pool directory and configuration, for tests and
benchmarks: each started, killed with -9, restarted and stopped on demand."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import trio

from condorx.client.schedd import ScheddClient
from condorx.language.config import Config, load_config
from condorx.testing.daemon_forks import ForkedDaemon
from condorx.testing.tools import run_tool
from condorx.transport import locate
from condorx.transport.connection import Address, connect, daemon_credentials

CONFIG = """\
LOCAL_DIR = {dir}
# The pool's own passwords.d (its signing key): HTCondor's default is $(ETC)/passwords.d,
# and with ETC unset that is /passwords.d, one key for every pool on the machine.
ETC = $(LOCAL_DIR)/etc
SPOOL = $(LOCAL_DIR)/spool
LOG = $(LOCAL_DIR)/log
LOCK = $(LOCAL_DIR)/lock
EXECUTE = $(LOCAL_DIR)/execute
NETWORK_INTERFACE = 127.0.0.1
SCHEDD_NAME = test-schedd@loopback
"""


class DaemonProcess:
    def __init__(
        self, pool: LocalPool, name: str, address_file: Path, local_name: str | None = None
    ) -> None:
        self.pool = pool
        self.name = name
        self.local_name = local_name  # `-local-name`: a second negotiator, say
        self.address_file = address_file
        self.proc: subprocess.Popen[bytes] | ForkedDaemon | None = None

    @property
    def log(self) -> Path:
        return self.pool.root / f"{self.local_name or self.name}.out"

    def start(self, timeout: float = 30.0) -> None:
        self.launch()
        self.wait_ready(timeout)

    def launch(self) -> None:
        """Start the process; `wait_ready` waits for it to accept requests."""
        self.address_file.unlink(missing_ok=True)
        if LocalPool.fork_daemons:
            self.proc = ForkedDaemon(self.name, self.local_name, self.pool.env, self.log)
            return
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "condorx.daemons", self.name]
            + (["-local-name", self.local_name] if self.local_name else []),
            env=self.pool.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Until the daemon has written its address file (it accepts requests)."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while not self.address_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the {self.name} did not start:\n{self.log.read_text()}")
            time.sleep(0.02)

    def address(self) -> str:
        return locate.read_address(str(self.address_file))

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        self.terminate()
        self.reap()

    def terminate(self) -> None:
        """Ask the daemon to stop (SIGTERM); `reap` waits for it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()

    def reap(self) -> None:
        """Wait for a stopping daemon; after 10 s, kill it."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()


def wait_for(predicate: Any, what: str, timeout: float = 30.0) -> Any:
    """Poll until `predicate()` is truthy (daemons act on their own time); returns its
    value, or fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{_log_tails()}")
        time.sleep(0.1)


def wait_for_pid(path: Path, what: str = "the job to start") -> int:
    """The pid a job writes to `path` (`echo $$ > path`), once the whole line is there: the
    shell creates the file before it writes to it."""
    wait_for(lambda: path.exists() and path.read_text().endswith("\n"), what)
    return int(path.read_text())


def alive(pid: int) -> bool:
    """Whether a process of this pid exists (a zombie, not yet reaped, counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def run_in_nursery(test: Any, timeout: float = 30.0) -> None:
    """Run `await test(nursery)` under trio, then cancel whatever it left running there;
    past `timeout` seconds it fails (a hang is a failure, not a stuck CI run)."""

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            with trio.fail_after(timeout):
                await test(nursery)
            nursery.cancel_scope.cancel()

    trio.run(main)


# The pools a test has running: when a wait times out, their logs say why (a CI run
# keeps nothing else).
_RUNNING: list[LocalPool] = []


def _log_tails(lines: int = 25) -> str:
    shown = []
    for pool in _RUNNING:
        logs = sorted(pool.root.glob("*.out")) + sorted((pool.root / "log").glob("*Log"))
        for log in logs:
            tail = log.read_text(errors="replace").splitlines()[-lines:]
            if tail:
                shown.append(f"--- {log} (last {len(tail)} lines)\n" + "\n".join(tail))
    return "\n".join(shown)


# A small, quick pool for tests: the daemons update, negotiate and report every second
# or two.
QUICK_POOL = """\
NEGOTIATOR_INTERVAL = 2
UPDATE_INTERVAL = 2
SCHEDD_INTERVAL = 2
STARTER_HEARTBEAT = 1
NUM_CPUS = 2
START = TRUE
"""


class LocalPool:
    """A pool directory with a configuration file; its daemons run as real processes."""

    # Daemons forked from a server that has imported them (the tests), or started with
    # `python -m condorx.daemons` as users start them (the benchmarks).
    fork_daemons = False

    def __init__(self, root: Path, extra_config: str = "") -> None:
        self.root = root
        self.config_file = root / "condor_config"
        self.config_file.write_text(CONFIG.format(dir=root) + extra_config)
        self.env = {**os.environ, "CONDORX_CONFIG": str(self.config_file)}
        self.env.pop("CONDORX_TOKEN", None)
        self.cfg: Config = load_config(path=self.config_file, environ=self.env)
        self.daemons: dict[str, DaemonProcess] = {}
        _RUNNING.append(self)

    def cli(
        self,
        target: str,
        *args: str,
        check: bool = True,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        name: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run a tool against this pool; with `check`, a non-zero exit fails loudly."""
        r = run_tool(target, args, env or self.env, cwd or self.root, name)
        if check and r.returncode != 0:
            raise AssertionError(f"{name or target} {args} exited {r.returncode}: {r.stderr}")
        return r

    def reload(self) -> None:
        """Read the configuration file again (after a test appends to it)."""
        self.cfg = load_config(path=self.config_file, environ=self.env)

    def daemon(self, name: str) -> DaemonProcess:
        """The daemon `name`; `name:LOCAL` is one run with `-local-name LOCAL` (its address
        file as LOCAL.<SUBSYS>_ADDRESS_FILE names it)."""
        if name not in self.daemons:
            kind, _, local = name.partition(":")
            cfg = self.cfg
            if local:
                cfg = load_config(local_name=local, path=self.config_file, environ=self.env)
            files = {
                "schedd": locate.schedd_address_file,
                "collector": locate.collector_address_file,
                "negotiator": locate.negotiator_address_file,
                "startd": locate.startd_address_file,
                "master": locate.master_address_file,
                "job_router": locate.job_router_address_file,
                "defrag": locate.defrag_address_file,
                "sim": locate.sim_address_file,
            }
            self.daemons[name] = DaemonProcess(self, kind, Path(files[kind](cfg)), local or None)
        return self.daemons[name]

    def start(self, *names: str, timeout: float = 30.0) -> None:
        """Start the daemons: the collector first (the others find it through its
        address file), then the rest at once, returning when each accepts requests
        (each within `timeout` seconds)."""
        first = [n for n in names if n.partition(":")[0] == "collector"]
        rest = [n for n in names if n not in first]
        for group in (first, rest):
            for name in group:
                self.daemon(name).launch()
            for name in group:
                self.daemon(name).wait_ready(timeout)

    def call_daemon(self, name: str, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request to a running daemon as the pool's own daemons do (with the
        pool key's identity); returns its reply."""

        async def go() -> dict[str, Any]:
            address = Address.parse(self.daemon(name).address())
            ch = await connect(address, daemon_credentials(self.cfg))
            try:
                return await ch.request(request)
            finally:
                await ch.aclose()

        return trio.run(go)

    def submit(self, text: str, name: str = "job.sub", cwd: Path | None = None) -> int:
        """condor_submit of the description `text` (written as `name` in `cwd`, else the
        pool's directory), as the tests' tool runs it; the cluster it made."""
        (cwd or self.root).joinpath(name).write_text(text)
        out = self.cli("condorx.cli.submit", name, cwd=cwd).stdout
        return int(out.strip().split()[-1].rstrip("."))

    def condor_submit(self, text: str) -> tuple[float, float]:
        """condor_submit of the description `text` in a process of its own, as a user
        runs it (not forked from the tools' server, whose imports are already done): when
        it began and when the schedd had acknowledged it."""
        (self.root / "job.sub").write_text(text)
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "condorx.cli.submit", "job.sub"],
            env=self.env,
            cwd=self.root,
            check=True,
            capture_output=True,
        )
        return t0, time.perf_counter()

    def count_jobs(self) -> int:
        """The jobs in this pool's schedd queue, asked in-process with the pool's daemon
        identity: a bench polls it, and a condor_q process every poll would take CPU
        from the pool it measures."""

        async def count() -> int:
            client = ScheddClient(self.cfg, creds=daemon_credentials(self.cfg))
            n = 0
            async for chunk in client.query_rows(["1"]):
                n += len(chunk)
            return n

        return trio.run(count)

    @classmethod
    @contextmanager
    def running(cls, root: Path, *daemons: str, config: str = "") -> Iterator[LocalPool]:
        """A pool in `root` with `daemons` started, stopped when the block ends."""
        pool = cls(root, config)
        try:
            pool.start(*daemons)
            yield pool
        finally:
            pool.stop()

    def stop(self) -> None:
        if self in _RUNNING:
            _RUNNING.remove(self)
        daemons = list(reversed(self.daemons.values()))
        for d in daemons:
            d.terminate()
        for d in daemons:
            d.reap()
