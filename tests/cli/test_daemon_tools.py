"""condor_ping and condor_who against a real pool: what each daemon lets this user do (by
the permission table that judges real requests), and the jobs a startd runs."""

from __future__ import annotations

import getpass
import os

from condorx.testing.pool import wait_for, wait_for_pid

ME = getpass.getuser()


def test_condor_ping_asks_the_daemon_after_authenticating(running):
    r = running.cli("condorx.cli.ping")
    assert r.stdout == (
        f"WRITE command using (no encryption, no integrity, and UNIX) succeeded as {ME}"
        " to local schedd.\n"
    )
    # Only the pool's own daemons may advertise to the collector.
    r = running.cli("condorx.cli.ping", "-type", "collector", "READ", "DAEMON", check=False)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        f"READ command using (ChaCha20-Poly1305, ChaCha20-Poly1305, and TOKEN) succeeded"
        f" as {ME} to local collector.",
        "DAEMON failed!  Use -verbose for more information.",
    ]
    # A command by its name: the level it needs is the one the table gives it.
    r = running.cli("condorx.cli.ping", "-type", "startd", "-verbose", "vacate")
    assert "Command:                      needs ADMINISTRATOR" in r.stdout
    assert "Authorized:                   TRUE" in r.stdout
    r = running.cli("condorx.cli.ping", "-table", "ALL", check=False)
    lines = r.stdout.splitlines()
    assert lines[0].split() == [
        "Instruction",
        "Authentication",
        "Encryption",
        "Integrity",
        "Decision",
        "Identity",
    ]
    decisions = {ln.split()[0]: ln.split()[-2] for ln in lines[1:]}
    assert decisions["READ"] == decisions["WRITE"] == "ALLOW"
    assert decisions["DAEMON"] == decisions["NEGOTIATOR"] == "DENY"
    assert r.returncode == 1  # not everything is allowed
    r = running.cli("condorx.cli.ping", "NO_SUCH_THING", check=False)
    assert (r.returncode, r.stderr) == (1, 'ERROR: Could not understand TOKEN "NO_SUCH_THING".\n')
    assert running.cli("condorx.cli.ping", "-quiet", "READ").stdout == ""


def test_condor_ping_with_another_users_token_over_tcp(running):
    token = running.cli("condorx.cli.token:create", "-identity", "mallory").stdout.strip()
    address = running.daemon("schedd").address()
    env = {**running.env, "CONDORX_TOKEN": token}
    r = running.cli(
        "condorx.cli.ping", "-address", address, "WRITE", "ADMINISTRATOR", env=env, check=False
    )
    assert r.stdout.splitlines()[0].endswith(f"succeeded as mallory to schedd at {address}.")
    assert r.stdout.splitlines()[1] == "ADMINISTRATOR failed!  Use -verbose for more information."
    assert r.returncode == 1


def test_condor_who_shows_the_running_jobs(running):
    assert running.cli("condorx.cli.who").stdout == ""  # nothing runs: nothing at all
    pidfile = running.root / "pid"
    (running.root / "job.sub").write_text(
        f"executable = /bin/sh\narguments = \"-c 'echo $$ > {pidfile}; exec sleep 300'\"\nqueue\n"
    )
    running.cli("condorx.cli.submit", "job.sub")
    pid = wait_for_pid(pidfile)
    out = wait_for(
        lambda: (o := running.cli("condorx.cli.who").stdout) and str(pid) in o and o,
        "condor_who to show the job",
    )
    lines = out.splitlines()
    assert lines[0] == "" and lines[-1] == ""  # as HTCondor's: a blank line each side
    assert lines[1].split() == ["OWNER", "CLIENT", "SLOT", "JOB", "RUNTIME", "PID", "JOB_DIR"]
    owner, _client, slot, job, runtime, shown_pid, job_dir = lines[2].split()
    assert (owner, job, shown_pid) == (ME, "1.0", str(pid))
    assert runtime.startswith("0+") and job_dir == os.readlink(f"/proc/{pid}/cwd")
    af = running.cli("condorx.cli.who", "-af", "JobId", "RemoteOwner").stdout
    assert af == f"1.0 {ME}\n"
    running.cli("condorx.cli.act:rm", "1.0")
