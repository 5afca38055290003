"""README's story for HTCondor's own clients: after `condorx pool up`, a script that uses
`pip install htcondor` (with CONDOR_CONFIG as pool up says) submits a job, which runs,
and reads its history and its event log, as on a personal HTCondor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.daemons  # starts its own daemons

SCRIPT = """
import json, time, htcondor2 as htcondor
schedd = htcondor.Schedd()
sub = htcondor.Submit({
    "executable": "/bin/echo", "arguments": "hello from $(ClusterId).$(ProcId)",
    "output": "out.txt", "log": "job.log",
})
cluster = schedd.submit(sub).cluster()
deadline = time.time() + 90
while schedd.query(f"ClusterId == {cluster}", ["ProcId"]) and time.time() < deadline:
    time.sleep(0.5)
done = list(schedd.history(f"ClusterId == {cluster}", ["ExitCode", "JobStatus"]))
events = [e.type.name for e in htcondor.JobEventLog("job.log").events(stop_after=0)]
slots = len(htcondor.Collector().query(htcondor.AdTypes.Startd))
print(json.dumps({"done": [[d["JobStatus"], d["ExitCode"]] for d in done],
                  "events": events, "slots": slots, "cluster": cluster}))
"""


class _PoolUp:
    """A pool from `condorx pool up` in a scratch directory: condorx's commands run
    against it, and a user's script with the CONDOR_CONFIG that pool up names."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {**os.environ, "CONDORX_CONFIG": str(root / "condor_config")}
        self.env.pop("CONDOR_CONFIG", None)
        self.said = ""  # what pool up printed

    def condorx(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        r = subprocess.run(
            [sys.executable, "-m", "condorx.cli.main", *argv],
            env=self.env,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0 or not check, r.stderr
        return r

    def user_script(self, script: str) -> subprocess.CompletedProcess[str]:
        """`script` run as a user would, with the CONDOR_CONFIG pool up told of."""
        line = [x for x in self.said.splitlines() if "CONDOR_CONFIG=" in x][0]
        user = {**os.environ, "CONDOR_CONFIG": line.split("CONDOR_CONFIG=", 1)[1].strip()}
        user.pop("CONDORX_CONFIG", None)
        r = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)],
            env=user,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert r.returncode == 0, r.stderr
        return r


@contextmanager
def _pool_up(down: bool = True) -> Iterator[_PoolUp]:
    """`down`: condorx pool down must succeed at the end (False: the test stops the
    master itself)."""
    with tempfile.TemporaryDirectory(prefix="cx-htc-") as d:
        pool = _PoolUp(Path(d))
        pool.said = pool.condorx("pool", "up", "--dir", d).stdout
        try:
            yield pool
        finally:
            pool.condorx("pool", "down", check=down)


def _last_json(r: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_a_pip_installed_htcondor_script_runs_a_job_on_condorx_pool_up():
    with _pool_up() as pool:
        v = _last_json(pool.user_script(SCRIPT))
        out = (pool.root / "out.txt").read_text()
    assert v["done"] == [[4, 0]]
    assert v["events"][0] == "SUBMIT" and v["events"][-1] == "JOB_TERMINATED"
    assert v["slots"] >= 1
    assert out == f"hello from {v['cluster']}.0\n"


COMMANDS = """
import json, time, htcondor2 as htcondor
coll = htcondor.Collector()
master = coll.locate(htcondor.DaemonTypes.Master)
def schedd_answers():
    try:
        htcondor.Schedd().query(limit=1)
        return True
    except Exception:
        return False
def until(want):
    deadline = time.time() + 60
    while schedd_answers() != want and time.time() < deadline:
        time.sleep(0.3)
    return schedd_answers()
out = {"before": schedd_answers()}
htcondor.send_command(master, htcondor.DaemonCommand.DaemonOff, "SCHEDD")
out["off"] = until(False)
htcondor.send_command(master, htcondor.DaemonCommand.DaemonOn, "SCHEDD")
out["on"] = until(True)
htcondor.send_command(master, htcondor.DaemonCommand.OffGraceful)
print(json.dumps(out))
"""


def test_htcondors_send_command_turns_the_masters_daemons_off_and_on():
    with _pool_up(down=False) as pool:
        r = pool.user_script(COMMANDS)
        assert _last_json(r) == {"before": True, "off": False, "on": True}
        # DaemonOn came while DaemonOff was still stopping the schedd: the master started
        # it again once it was gone, not as a crashed daemon after MASTER_BACKOFF.
        assert "exited (status" not in (pool.root / "log" / "MasterLog").read_text()
        deadline = time.monotonic() + 60
        while pool.condorx("pool", "status", check=False).returncode == 0:
            assert time.monotonic() < deadline, "the master did not stop on DC_OFF_GRACEFUL"
            time.sleep(0.3)


def test_pool_up_starts_a_pool_without_a_startd():
    # HTCondor's regression tests and submit nodes run masters with no startd (use ROLE :
    # CentralManager, or Submit): pool up waits for what DAEMON_LIST runs, no slot.
    with tempfile.TemporaryDirectory(prefix="cx-cm-") as d:
        (Path(d) / "condor_config").write_text(
            f"use ROLE : CentralManager\nuse ROLE : Submit\nLOCAL_DIR = {d}\nETC = {d}/etc\n"
        )
        pool = _PoolUp(Path(d))
        pool.said = pool.condorx("pool", "up", "--dir", d).stdout
        try:
            assert "Personal pool up in" in pool.said
            status = pool.condorx("pool", "status").stdout
            assert sorted(line.split()[0] for line in status.splitlines()) == [
                "collector",
                "negotiator",
                "schedd",
            ]
        finally:
            pool.condorx("pool", "down")
