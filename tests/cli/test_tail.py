"""condor_tail on a real pool: a running job's output read where it runs, for its owner
alone; -f follows it until the job ends."""

from __future__ import annotations

import subprocess
import sys

from condorx.testing.pool import wait_for


def submit(pool, script: str, extra: str = "") -> int:
    (pool.root / "job.sh").write_text(script)
    (pool.root / "job.sh").chmod(0o755)
    return pool.submit(f"executable = job.sh\noutput = out.txt\nerror = err.txt\n{extra}queue\n")


def test_condor_tail_reads_a_running_jobs_output(running):
    c = submit(
        running,
        "#!/bin/sh\necho one; echo two; echo oops >&2; echo note > notes.txt\n"
        "while [ ! -e end ]; do sleep 0.1; done\n",
    )
    wait_for(lambda: (running.root / "notes.txt").exists(), "the job to write")
    assert running.cli("condorx.cli.tail", f"{c}.0").stdout == "one\ntwo\n"
    assert running.cli("condorx.cli.tail", "-maxbytes", "4", str(c)).stdout == "two\n"
    assert running.cli("condorx.cli.tail", "-stderr", str(c)).stdout == "oops\n"
    assert running.cli("condorx.cli.tail", str(c), "notes.txt").stdout == "note\n"
    r = running.cli("condorx.cli.tail", str(c), "../condor_config", check=False)
    assert r.returncode == 1 and "not a file in the job's directory" in r.stderr
    token = running.cli("condorx.cli.token:create", "-identity", "mallory").stdout.strip()
    r = running.cli(
        "condorx.cli.tail", str(c), env={**running.env, "CONDORX_TOKEN": token}, check=False
    )
    assert r.returncode == 1
    assert r.stderr == f"mallory is not authorized for access to the starter for job {c}.0\n"
    r = running.cli("condorx.cli.tail", f"{c + 1}.0", check=False)
    assert (r.returncode, r.stderr) == (1, f"No such job: {c + 1}.0\n")
    (running.root / "end").touch()


def test_condor_tail_follows_until_the_job_ends(running):
    c = submit(
        running,
        "#!/bin/sh\necho a\nwhile [ ! -e go ]; do sleep 0.1; done\necho b\n"
        "while [ ! -e end ]; do sleep 0.1; done\n",
    )
    wait_for(lambda: (running.root / "out.txt").exists(), "the job to start")
    follow = subprocess.Popen(
        [sys.executable, "-m", "condorx.cli.tail", "-f", str(c)],
        env=running.env,
        cwd=running.root,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert follow.stdout is not None
        assert follow.stdout.readline() == "a\n"
        (running.root / "go").touch()
        assert follow.stdout.readline() == "b\n"
        (running.root / "end").touch()
        assert follow.wait(timeout=60) == 0
        assert follow.stdout.read() == ""
    finally:
        follow.kill()
