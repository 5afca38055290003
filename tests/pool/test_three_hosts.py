"""A pool across three hosts — a central manager (collector, negotiator), an execute host
(startd) and a submit host (schedd) — each in its own network namespace with its own
address, directories and file system domain, sharing only the pool's signing key. Jobs
submitted on the submit host run on the execute host; their files travel both ways."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from condorx.testing import netns
from condorx.testing.capture import Capture
from condorx.testing.pool import QUICK_POOL
from condorx.transport import security

WHY_NOT = netns.available()
pytestmark = [
    pytest.mark.daemons,
    pytest.mark.skipif(WHY_NOT is not None, reason=f"no network namespaces: {WHY_NOT}"),
]

CONFIG = (
    """\
LOCAL_DIR = {dir}
SPOOL = $(LOCAL_DIR)/spool
LOG = $(LOCAL_DIR)/log
LOCK = $(LOCAL_DIR)/lock
EXECUTE = $(LOCAL_DIR)/execute
NETWORK_INTERFACE = {address}
COLLECTOR_HOST = {collector}:9618
FILESYSTEM_DOMAIN = {name}.pool.example
UID_DOMAIN = pool.example
SCHEDD_NAME = schedd@{name}
SEC_TOKEN_POOL_SIGNING_KEY_FILE = {key}
"""
    + QUICK_POOL
)


@pytest.fixture
def three_hosts(tmp_path: Path):
    net = netns.Network(["cm", "exec", "submit"])
    key = tmp_path / "POOL"
    security.ensure_pool_key(key)
    envs = {}
    try:
        for name, host in net.hosts.items():
            d = tmp_path / name
            d.mkdir()
            (d / "condor_config").write_text(
                CONFIG.format(
                    dir=d,
                    address=host.address,
                    collector=net.hosts["cm"].address,
                    name=name,
                    key=key,
                )
            )
            envs[name] = {**os.environ, "CONDORX_CONFIG": str(d / "condor_config")}
        daemons = [
            ("cm", "collector"),
            ("cm", "negotiator"),
            ("exec", "startd"),
            ("submit", "schedd"),
        ]
        for host, daemon in daemons:
            net.hosts[host].spawn(
                [sys.executable, "-m", "condorx.daemons", daemon],
                envs[host],
                tmp_path / f"{daemon}.out",
            )
            if daemon == "collector":  # the others first find it listening
                listening = tmp_path / "cm" / "log" / ".collector_address"
                _wait(listening.exists, "the collector to listen", timeout=30.0)
        # condor_submit finds the schedd by the address file it writes once it listens:
        # the execute host's slots may reach the collector first.
        schedd = tmp_path / "submit" / "spool" / ".schedd_address"
        _wait(schedd.exists, "the schedd to listen", timeout=30.0)
        yield net, envs, tmp_path
    finally:
        net.close()


def _wait(check, what: str, timeout: float = 40.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def test_jobs_submitted_on_one_host_run_on_another(three_hosts):
    net, envs, root = three_hosts
    # What a stranger on the wire between the hosts would see (each host's link).
    wire = Capture([h.link for h in net.hosts.values()])
    submit, execute = net.hosts["submit"], net.hosts["exec"]
    work = root / "work"
    work.mkdir()
    (work / "in.txt").write_text("from the submit host\n")

    def status():
        r = submit.python(
            "condorx.cli.status", "-af", "Name", "MyAddress", env=envs["submit"], cwd=work
        )
        return r.stdout if r.returncode == 0 and r.stdout.count("\n") == 2 else None

    slots = _wait(status, "the execute host's slots in the collector")
    assert f"<{execute.address}:" in slots
    (work / "job.sub").write_text(
        "executable = /bin/sh\n"
        "arguments = \"-c 'cat in.txt; echo ran in $_CONDOR_SCRATCH_DIR; echo made > made.txt'\"\n"
        "transfer_input_files = in.txt\noutput = out.$(Process)\nlog = job.log\nqueue 2\n"
    )
    r = submit.python("condorx.cli.submit", "job.sub", env=envs["submit"], cwd=work)
    assert r.returncode == 0, r.stderr

    def done():
        r = submit.python(
            "condorx.cli.history",
            "-af",
            "ProcId",
            "JobStatus",
            "ExitCode",
            "RemoteHost",
            env=envs["submit"],
            cwd=work,
        )
        return r.stdout if r.stdout.count("\n") == 2 else None

    rows = sorted(line.split() for line in _wait(done, "both jobs to finish").splitlines())
    assert [r[:3] for r in rows] == [["0", "4", "0"], ["1", "4", "0"]]
    for p in (0, 1):
        out = (work / f"out.{p}").read_text()
        assert out.startswith("from the submit host\nran in ")
        assert str(root / "exec" / "execute") in out  # the execute host's scratch directory
    assert (work / "made.txt").read_text() == "made\n"
    log = (work / "job.log").read_text()
    assert f"Job executing on host: <{execute.address}:" in log
    seen = wire.stop()
    # The handshakes are in the clear, and the capture saw them...
    assert seen.count(b"hello") >= 3
    # ...but not the ads, the job, its input going out nor its output coming back.
    for secret in (b"from the submit host", b"ran in ", b"MyAddress", b"advertise", b"Owner"):
        assert secret not in seen, secret
