"""condor_userprio on a real pool: the negotiator's accountant as HTCondor's table shows it,
an administrator's edits (and a user's refused), and the records surviving kill -9."""

from __future__ import annotations

import getpass

from condorx.testing.pool import wait_for, wait_for_pid

ME = getpass.getuser()


def _rows(pool, *args: str) -> dict[str, list[str]]:
    out = pool.cli("condorx.cli.userprio", *args).stdout
    return {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()[4:-2]}


def test_userprio_shows_edits_and_keeps_the_accountants_records(running):
    domain = running.cfg.get("UID_DOMAIN") or running.cfg.get("FULL_HOSTNAME")
    me = f"{ME}@{domain}"
    pidfile = running.root / "pid"
    (running.root / "job.sub").write_text(
        f"executable = /bin/sh\narguments = \"-c 'echo $$ > {pidfile}; exec sleep 300'\"\nqueue\n"
    )
    running.cli("condorx.cli.submit", "job.sub")
    wait_for_pid(pidfile)
    # A cycle after the job started charges its slot to its owner.
    rows = wait_for(
        lambda: (r := _rows(running)) and me in r and r[me][2] == "1" and r, "the usage"
    )
    out = running.cli("condorx.cli.userprio").stdout.splitlines()
    assert out[0].startswith("Last Priority Update:")
    assert out[1].split() == [
        "Effective",
        "Priority",
        "Wghted",
        "Total",
        "Usage",
        "Time",
        "Since",
        "Submitter",
        "Submitter",
    ]
    assert out[2].split()[:2] == ["User", "Name"]
    assert set(out[3]) == {"-", " "} and out[-2] == out[3]
    assert out[-1].split()[:4] == ["Number", "of", "users:", "1"]
    effective, factor, in_use, _hours, since = rows[me]
    assert (factor, in_use, since) == ("1000.00", "1", "<now>")
    assert float(effective) >= 500.0

    r = running.cli("condorx.cli.userprio", "-setfactor", me, "10")
    assert r.stdout == f"The priority factor of {me} was set to 10.000000\n"
    assert _rows(running, "-priority")[me][2] == "10.00"
    r = running.cli("condorx.cli.userprio", "-setfactor", me, "0.5", check=False)
    assert (r.returncode, r.stderr) == (1, "Priority factors must be greater than or equal to 1.\n")
    r = running.cli("condorx.cli.userprio", "-setprio", ME, "5", check=False)
    assert r.returncode == 1 and "You must specify the full name of the submittor" in r.stderr
    token = running.cli("condorx.cli.token:create", "-identity", "mallory").stdout.strip()
    r = running.cli(
        "condorx.cli.userprio",
        "-setfactor",
        me,
        "1",
        env={**running.env, "CONDORX_TOKEN": token},
        check=False,
    )
    assert r.returncode == 1
    assert r.stderr.startswith("failed to send SET_PRIORITYFACTOR command to negotiator")
    assert _rows(running, "-priority")[me][2] == "10.00"

    # The records outlive the negotiator.
    running.daemon("negotiator").kill9()
    running.start("negotiator")
    assert _rows(running, "-priority")[me][2] == "10.00"
    af = running.cli("condorx.cli.userprio", "-af", "Name", "PriorityFactor").stdout
    assert af == f"{me} 10.0\n"
    assert running.cli("condorx.cli.userprio", "-delete", me).stdout == (
        f"The accountant record named {me} was deleted\n"
    )
    running.cli("condorx.cli.act:rm", "-all")
