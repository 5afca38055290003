"""batchspawner 1.3.0's CondorSpawner (JupyterHub's spawner for HTCondor), unchanged, on a
condorx personal pool. It pipes its job description to `condor_submit` on standard
input, naming no file, and finds the job in `N job(s) submitted to cluster C.`, which
HTCondor's condor_submit prints then (only `-` as the file name implies -verbose); it
follows the job with `condor_q ID -format ...` and ends it with `condor_rm ID`.

The notebook server itself is not run: the job runs `sleep`, and the test plays the hub
(a user, the spawner's traits as a site's jupyterhub_config.py sets them)."""

from __future__ import annotations

import asyncio
import getpass
import subprocess
import time
import types

from batchspawner import CondorSpawner
from batchspawner.batchspawner import JobStatus
from jupyterhub.objects import Hub


def _spawner(home: str, **traits: object) -> CondorSpawner:
    user = types.SimpleNamespace(
        name=getpass.getuser(), escaped_name=getpass.getuser(), url="/user/u/", id=1
    )
    return CondorSpawner(
        user=user,
        hub=Hub(),
        exec_prefix="",  # the hub's own account submits (no sudo to another user)
        batchspawner_singleuser_cmd="",
        cmd=["/bin/sleep"],
        args=["300"],
        req_homedir=home,
        # What a site's config keeps of the hub's environment: the pool it submits to.
        env_keep=["PATH", "CONDOR_CONFIG", "CONDORX_CONFIG"],
        **traits,
    )


async def _until_running(sp: CondorSpawner, timeout: float) -> JobStatus:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = await sp.query_job_status()
        if status == JobStatus.RUNNING:
            return status
        await asyncio.sleep(0.2)
    return await sp.query_job_status()


def test_condor_spawner_submits_follows_and_cancels_its_job(personal_pool, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    sp = _spawner(str(home))

    async def run() -> None:
        job_id = await sp.submit_batch_script()
        assert job_id.isdigit(), job_id
        assert await _until_running(sp, 60) == JobStatus.RUNNING, sp.job_status
        # state_exechost_re reads the slot's host from RemoteHost ("slot1@host").
        assert sp.state_gethost(), sp.job_status
        await sp.cancel_batch_job()
        deadline = time.monotonic() + 60
        while await sp.query_job_status() != JobStatus.NOTFOUND and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert await sp.query_job_status() == JobStatus.NOTFOUND, sp.job_status

    asyncio.run(run())
    # The job was the command batchspawner built, to run in the user's home directory.
    q = subprocess.run(
        ["condor_history", sp.job_id, "-af:,", "Arguments", "RemoteIwd", "JobStatus"],
        env=personal_pool.env,
        capture_output=True,
        text=True,
        check=True,
    )
    # (HTCondor 24's condor_submit keeps these arguments as `-c exec'  '/bin/sleep' '300`.)
    assert q.stdout.strip() == f"-c exec'  '/bin/sleep' '300, {home}, 3", q.stdout


def test_condor_submit_reports_a_piped_description_as_htcondors_does(personal_pool, tmp_path):
    # Named as "-", a description on standard input implies -verbose (no "Submitting
    # job(s)", each job's ad); piped with no file named, it is reported as a file's is.
    text = "executable = /bin/true\nqueue 2\n"

    def submit(*args: str) -> str:
        r = subprocess.run(
            ["condor_submit", *args],
            input=text,
            env=personal_pool.env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, r.stderr
        return r.stdout

    plain = submit()
    assert plain.startswith("Submitting job(s)..\n") and "** Proc" not in plain
    assert plain.rstrip().endswith("2 job(s) submitted to cluster " + plain.split()[-1])
    dash = submit("-")
    assert dash.startswith("\n** Proc ") and ".1:\n" in dash and "Submitting" not in dash
    assert "submitted to cluster" not in dash
    terse = submit("-terse", "-")
    assert terse.strip().endswith(".1") and " - " in terse
