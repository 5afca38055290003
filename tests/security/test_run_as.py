"""Which account a job runs as on a startd that is root: its owner's, when this machine
has that account; else the slot's SLOT<N>_USER, else nobody. Its starter hooks run as
the same account, and its standard files are opened with that account's rights."""

from __future__ import annotations

import itertools
import os
import pwd

import pytest

from condorx.testing.pool import QUICK_POOL as POOL
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.pool import wait_for

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching accounts needs root")


def _absent_user() -> str:
    """A user name with no account on this machine (a machine may well have an alice)."""
    for n in itertools.count():
        name = f"cxstranger{n}"
        try:
            pwd.getpwnam(name)
        except KeyError:
            return name
    raise AssertionError("unreachable")


# A token's user from elsewhere: no account here.
STRANGER = _absent_user()


def start(pool: Pool, extra: str = "") -> Pool:
    with open(pool.config_file, "a") as f:
        f.write(POOL + extra)
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    return pool


def as_user(pool: Pool, user: str) -> dict[str, str]:
    token = pool.cli("condorx.cli.token:create", "-identity", user).stdout.strip()
    return {**pool.env, "CONDORX_TOKEN": token}


def run_id(pool: Pool, name: str, env: dict[str, str] | None = None, extra: str = "") -> str:
    """Submit `id -un` (its output and files travelling) and return what it printed."""
    (pool.root / f"{name}.sub").write_text(
        "executable = /usr/bin/id\narguments = -un\nshould_transfer_files = YES\n"
        f"transfer_executable = false\noutput = out/{name}.out\nerror = out/{name}.err\n"
        f"{extra}queue\n"
    )
    pool.cli("condorx.cli.submit", f"{name}.sub", env=env)
    out = pool.root / "out" / f"{name}.out"
    wait_for(lambda: out.exists() and out.read_text(), f"{name}'s job to run")
    return out.read_text().strip()


def test_jobs_run_as_their_owner_or_as_nobody(open_pool):
    pool = start(open_pool)
    assert run_id(pool, "mine") == "root"
    # An owner with an account here runs as it; one without (a token's user from
    # elsewhere) never runs as anyone with files here.
    assert run_id(pool, "daemons", as_user(pool, "daemon")) == "daemon"
    assert run_id(pool, "stranger", as_user(pool, STRANGER)) == "nobody"


def test_slot_user_and_runas_owner_off(open_pool):
    pool = start(
        open_pool, "SLOT1_USER = bin\nSLOT2_USER = bin\nSTARTER_ALLOW_RUNAS_OWNER = false\n"
    )
    assert run_id(pool, "stranger", as_user(pool, STRANGER)) == "bin"
    assert run_id(pool, "daemons", as_user(pool, "daemon")) == "bin"


def test_a_job_reads_and_writes_only_what_its_account_may(open_pool):
    pool = start(open_pool)
    secret = pool.root / "secret"
    secret.write_text("root only\n")
    secret.chmod(0o600)
    private = pool.root / "private"
    private.mkdir(mode=0o700)
    env = as_user(pool, STRANGER)  # runs as nobody
    # The starter opens a job's own standard files (no file transfer) as its account.
    (pool.root / "steal.sub").write_text(
        f"executable = /bin/cat\ninput = {secret}\noutput = out/stolen.out\n"
        "should_transfer_files = NO\nqueue\n"
    )
    pool.cli("condorx.cli.submit", "steal.sub", env=env)
    # The schedd reads input files and writes output files with the owner's rights.
    (pool.root / "fetch.sub").write_text(
        f"executable = /bin/true\ntransfer_input_files = {secret}\n"
        "should_transfer_files = YES\nqueue\n"
    )
    pool.cli("condorx.cli.submit", "fetch.sub", env=env)
    (pool.root / "plant.sub").write_text(
        f"executable = /bin/echo\narguments = planted\noutput = {private}/planted\n"
        "should_transfer_files = YES\nqueue\n"
    )
    pool.cli("condorx.cli.submit", "plant.sub", env=env)
    held = lambda: pool.cli("condorx.cli.q", "-allusers", "-af", "HoldReason").stdout  # noqa: E731
    wait_for(lambda: held().count("Permission denied") == 3, "all three thieves held")
    assert "Transfer input files failure" in held() and "reading from file" in held()
    stolen = pool.root / "out" / "stolen.out"
    assert not stolen.exists() or stolen.read_text() == ""
    # The echo ran, but its output could not be written where nobody may not write: it
    # is held for it (code 12, the errno as subcode), not completed without its output.
    assert f"Cannot write output file {private}/planted: Permission denied" in held()
    codes = pool.cli("condorx.cli.q", "-allusers", "-af", "Cmd", "HoldReasonCode").stdout
    assert "/bin/echo 12" in codes
    assert not (private / "planted").exists()


def test_starter_hooks_run_as_the_jobs_account(open_pool):
    hooks = open_pool.root / "hooks"
    hooks.mkdir(mode=0o755)
    hook = hooks / "prepare"
    hook.write_text(f"#!/bin/sh\nid -un > {open_pool.root}/out/prepared.$(id -un)\n")
    hook.chmod(0o755)
    pool = start(open_pool, f"STARTER_JOB_HOOK_KEYWORD = T\nT_HOOK_PREPARE_JOB = {hook}\n")
    assert run_id(pool, "stranger", as_user(pool, STRANGER)) == "nobody"
    assert (pool.root / "out" / "prepared.nobody").read_text() == "nobody\n"
    assert not (pool.root / "out" / "prepared.root").exists()


def test_a_sandboxed_route_reads_inputs_with_the_owners_rights(open_pool):
    # The schedd copies a sandboxed copy's inputs into its spool and gives them to the
    # job's account: read as root, a stranger's job could route /etc/shadow to itself.
    route = (
        "JOB_ROUTER_POLLING_PERIOD = 1\n"
        'JOB_ROUTER_ENTRIES = [ name = "Boxed"; TargetUniverse = 5; requirements = true; '
        "JobShouldBeSandboxed = true; ]\n"
    )
    pool = open_pool
    with open(pool.config_file, "a") as f:
        f.write(POOL + route)
    pool.reload()
    pool.start("collector", "schedd", "job_router")  # no startd: nothing runs it here
    secret = pool.root / "secret"
    secret.write_text("root only\n")
    secret.chmod(0o600)
    (pool.root / "boxed.sub").write_text(
        f"executable = /bin/true\ntransfer_input_files = {secret}\nqueue\n"
    )
    pool.cli("condorx.cli.submit", "boxed.sub", env=as_user(pool, STRANGER))
    log = pool.root / "log" / "JobRouterLog"
    wait_for(lambda: "Permission denied" in log.read_text(), "the route to be refused")
    assert f"cannot read input file {secret}" in log.read_text()
    ids = pool.cli("condorx.cli.q", "-allusers", "-af", "ClusterId").stdout.split()
    assert ids == ["1"]  # no copy was made
