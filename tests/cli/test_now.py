"""condor_now on a real pool: an idle job runs at once on a running job's slot, and the
running job goes back to the queue; the schedd's refusals as HTCondor's tool prints them."""

from __future__ import annotations

from condorx.testing.pool import alive, wait_for, wait_for_pid


def sleeper(pool, pidfile: str) -> int:
    return pool.submit(
        f"executable = /bin/sh\narguments = \"-c 'echo $$ > {pool.root / pidfile};"
        " exec sleep 600'\"\nqueue\n"
    )


def status(pool, job: int) -> int:
    out = pool.cli("condorx.cli.q", str(job), "-af", "JobStatus").stdout
    if not out:
        hist = pool.cli(
            "condorx.cli.history", "-af", "ClusterId", "JobStatus", "ExitBySignal", "ExitSignal"
        ).stdout
        raise AssertionError(f"job {job} not in the queue; history: {hist}")
    return int(out)


def test_condor_now_runs_a_job_in_the_place_of_another(running):
    # Two slots, two running jobs, and a third that waits for a slot.
    a, b = sleeper(running, "a.pid"), sleeper(running, "b.pid")
    a_pid, _ = wait_for_pid(running.root / "a.pid"), wait_for_pid(running.root / "b.pid")
    c = sleeper(running, "c.pid")
    assert status(running, c) == 1

    def now(*jobs: str, **kw):
        return running.cli("condorx.cli.now", *jobs, check=False, **kw)

    assert (now(str(c), f"{a}.5").returncode, now(str(c), f"{a}.5").stderr) == (
        1,
        "Unable to reassign slot: no such job (vacate-job).\n",
    )
    assert now(f"{b}", f"{a}").stderr == "Unable to reassign slot: the now-job must be idle.\n"
    assert now(f"{c}", f"{c}").stderr == "Unable to reassign slot: vacate-job must be running.\n"
    token = running.cli("condorx.cli.token:create", "-identity", "mallory").stdout.strip()
    r = now(str(c), str(a), env={**running.env, "CONDORX_TOKEN": token})
    assert r.stderr == "Unable to reassign slot: you must own the now-job.\n"
    assert now("x", "y").returncode == 1  # not job ids: the usage

    r = now(str(c), str(a))
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    wait_for_pid(running.root / "c.pid")
    wait_for(lambda: not alive(a_pid), "the vacated job to stop")
    wait_for(lambda: status(running, a) == 1, "the vacated job back in the queue, idle")
    assert status(running, c) == 2 and status(running, b) == 2
    assert f"runs condor_now's job {c}.0" in (running.root / "log" / "SchedLog").read_text()
