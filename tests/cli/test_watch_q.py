"""condor_watch_q on a real pool: it asks the schedd which logs the user's jobs write, then
follows the logs until its -exit condition holds, printing HTCondor's table, progress bar
and summary (each look ended by `...` when not on a terminal)."""

from __future__ import annotations

import subprocess
import sys

from condorx.testing.pool import wait_for


def _follow(pool, *args: str) -> str:
    """condor_watch_q's output: its jobs wait for a `go` file, made once it has shown
    its first look (so it has found them in the queue, whatever the machine's speed)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "condorx.cli.watch_q", *args],
        env=pool.env,
        cwd=pool.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line == "...\n":
            break
    (pool.root / "go").touch()
    rest, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return "".join(seen) + rest


def test_watch_q_follows_the_jobs_until_they_are_done(running):
    c = running.submit(
        "executable = /bin/sh\narguments = \"-c 'while [ ! -e go ]; do sleep 0.1; done'\"\n"
        f"initialdir = {running.root}\nlog = jobs.log\nbatch_name = mybatch\nqueue 2\n",
    )
    out = _follow(running, "-exit", "all,done", "-no-updated-at")
    looks = out.split("\n...\n")
    last, exit_line = looks[-2], looks[-1]
    assert exit_line.startswith('Exiting with code 0 because of condition "all done" at ')
    lines = last.splitlines()
    assert lines[0].split() == ["BATCH", "IDLE", "RUN", "DONE", "TOTAL", "JOB_IDS"]
    assert lines[1].split()[:5] == ["mybatch", "-", "-", "2", "2"]
    assert lines[1].rstrip().endswith("]")  # the row's own progress bar
    assert lines[3].startswith("Total Progress: [####")
    assert lines[5] == "Total: 2 jobs; 2 completed"
    # A held job, and a condition on it with its own exit code; -groupby cluster.
    d = running.submit("executable = /bin/true\nlog = held.log\nhold = true\nqueue\n")
    wait_for(lambda: (running.root / "held.log").exists(), "the submit event")
    r = running.cli(
        "condorx.cli.watch_q",
        "-clusters",
        str(d),
        "-exit",
        "any,held,3",
        "-groupby",
        "cluster",
        "-no-progress",
        check=False,
    )
    assert r.returncode == 3
    look = r.stdout.split("\n...\n")[-2].splitlines()
    assert look[0].split() == ["CLUSTER", "HELD", "IDLE", "RUN", "DONE", "TOTAL", "JOB_IDS"]
    assert look[1].split()[:7] == [str(d), "1", "-", "-", "-", "1", f"{d}.0"]
    # One row: cluster c, done and not named, is not followed.
    assert look[2:4] == ["", "Total: 1 jobs; 1 held"] and c != d


def test_watch_q_refusals(running):
    r = running.cli("condorx.cli.watch_q", "-exit", "all,done", check=False)
    assert (r.returncode, r.stderr) == (0, "WARNING: No jobs found, exiting...\n")
    r = running.cli("condorx.cli.watch_q", "-exit", "most,done", check=False)
    assert r.returncode == 2 and 'invalid GROUPER "most"' in r.stderr
    r = running.cli("condorx.cli.watch_q", "-clusters", "1", "-larger-than", "1", check=False)
    assert r.returncode == 1 and "-clusters and -larger-than" in r.stderr
