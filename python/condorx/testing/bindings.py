"""HTCondor's own Python bindings as clients of a condorx pool, for tests: a script runs
in a process of its own (the bindings' configuration is process-wide, and a client that
crashes must not take the test with it), configured by a CONDOR_CONFIG that includes the
pool's own and names its collector, as a user's would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from condorx.testing.pool import LocalPool
from condorx.transport import locate

# The wheel's Python: the venv's own (htcondor 25.14.1, module htcondor2).
PYTHON = sys.executable
# The legacy bindings (htcondor 24.0.24, module htcondor), in the venv bin/setup makes.
LEGACY_PYTHON = str(Path(__file__).resolve().parents[3] / ".venv-htcondor24" / "bin" / "python")


@dataclass
class Result:
    returncode: int
    value: Any
    stdout: str
    stderr: str


def client_config(pool: LocalPool, extra: str = "") -> str:
    address = locate.collector_address(pool.cfg)
    if address is None:
        raise RuntimeError("the pool's collector has not published its address")
    return f"include : {pool.config_file}\nCOLLECTOR_HOST = {address}\n{extra}"


def client_env(pool: LocalPool, path: Path, extra: str = "") -> dict[str, str]:
    """The environment of a program that uses HTCondor's clients on this pool: its
    CONDOR_CONFIG (written at `path`) and no condorx configuration."""
    path.write_text(client_config(pool, extra))
    env = {**os.environ, "CONDOR_CONFIG": str(path)}
    env.pop("CONDORX_CONFIG", None)
    return env


def run(
    pool: LocalPool,
    code: str,
    config: str = "",
    python: str = PYTHON,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> Result:
    """Run `code` with the bindings; its `result(value)` call (JSON) is the value."""
    path = pool.root / f"htcondor-{abs(hash(config)) % 10**8}.config"
    environ = client_env(pool, path, config)
    for name, setting in (env or {}).items():  # the pool's configuration whatever env says
        if name not in ("CONDOR_CONFIG", "CONDORX_CONFIG"):
            environ[name] = setting
    r = subprocess.run(
        [python, "-c", prelude() + textwrap.dedent(code)],
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=pool.root,
    )
    return Result(r.returncode, value_of(r.stdout), r.stdout, r.stderr)


def prelude() -> str:
    """What a script's `result(value)` is: one `RESULT <json>` line on its stdout."""
    return textwrap.dedent(
        """\
        import json, sys
        def result(value):
            sys.stdout.write("RESULT " + json.dumps(value) + "\\n")
        """
    )


def value_of(stdout: str) -> Any:
    """The value a script gave `result`, or None."""
    value = None
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            value = json.loads(line[7:])
    return value


# A script that reports, at READ and WRITE, who the schedd took the bindings for and
# whether it authorized them (or the exception's name when the ping failed).
WHO_AT_LEVELS = """
import htcondor2 as htcondor
schedd = htcondor.Collector().locate(htcondor.DaemonTypes.Schedd)
out = {}
for level in ("READ", "WRITE"):
    try:
        ad = htcondor.ping(schedd, level)
        out[level] = [ad.get("MyRemoteUserName"), ad.get("AuthorizationSucceeded")]
    except Exception as e:
        out[level] = type(e).__name__
result(out)
"""
