"""What scripts test: each queue tool's exit status and message on success, on a job that
does not exist, on a request that matches nothing, and on another user's job, as
HTCondor's tools give them (rm.cpp, qedit.cpp, prio.cpp, queue.cpp, history.cpp)."""

from __future__ import annotations

from jobs import cluster, procs
from test_security import _tcp_client


def _submit(schedd, n: int = 1) -> int:
    return schedd.call(schedd.client().submit, cluster(schedd.root), procs(n))


def _as(schedd, user: str) -> dict[str, str]:
    token = schedd.cli("condor_token_create", "-identity", user).stdout.strip()
    return {**schedd.env, "CONDORX_TOKEN": token}


def _run(schedd, *argv: str, env=None) -> tuple[int, str, str]:
    r = schedd.cli(*argv, env=env, check=False)
    return r.returncode, r.stdout, r.stderr


def test_the_action_tools(schedd):
    c = _submit(schedd, 2)
    assert _run(schedd, "condor_hold", f"{c}.0") == (0, f"Job {c}.0 held\n", "")
    assert _run(schedd, "condor_hold", f"{c}.5") == (1, "", f"Job {c}.5 not found\n")
    assert _run(schedd, "condor_release", f"{c}.1") == (
        1,
        "",
        f"Job {c}.1 not held to be released\n",
    )
    mallory = _as(schedd, "mallory")
    assert _run(schedd, "condor_rm", f"{c}.1", env=mallory) == (
        1,
        "",
        f"Permission denied to remove job {c}.1\n",
    )
    # A cluster of someone else's matches none of mallory's jobs.
    code, out, err = _run(schedd, "condor_rm", str(c), env=mallory)
    assert (code, out) == (1, "") and err.endswith(
        f"Couldn't find/remove all jobs in cluster {c}\n"
    )
    assert _run(schedd, "condor_rm", "-constraint", "false") == (
        1,
        "",
        "\nCouldn't find/remove all jobs matching constraint (false)\n",
    )
    assert _run(schedd, "condor_rm", "nosuchuser")[0] == 1
    assert _run(schedd, "condor_rm", "0.1") == (
        1,
        "",
        "Invalid cluster # from 0.1.\nYou did not specify any jobs\n",
    )


def test_qedit(schedd):
    c = _submit(schedd, 2)
    assert _run(schedd, "condor_qedit", f"{c}.0", "Foo", "1") == (
        0,
        'Set attribute "Foo" for 1 matching jobs.\n',
        "",
    )
    assert _run(schedd, "condor_qedit", str(c), "Foo=2", "Bar", '"x"') == (
        0,
        'Set attribute "Foo" for 2 matching jobs.\nSet attribute "Bar" for 2 matching jobs.\n',
        "",
    )
    failed = "Queue transaction failed.  No attributes were set.\n"
    # One missing job fails the whole transaction: the other is not changed either.
    assert _run(schedd, "condor_qedit", f"{c}.0", f"{c}.9", "Foo", "3") == (
        1,
        "",
        f'Failed to set attribute "Foo" for job {c}.9.\n' + failed,
    )
    assert _run(schedd, "condor_q", str(c), "-af", "Foo")[1] == "2\n2\n"
    assert _run(schedd, "condor_qedit", str(c + 1), "Foo", "3") == (
        1,
        "",
        f'Failed to set attribute "Foo" by constraint: ClusterId == {c + 1}\n' + failed,
    )
    mallory = _as(schedd, "mallory")
    assert _run(schedd, "condor_qedit", f"{c}.0", "Foo", "4", env=mallory) == (
        1,
        "",
        f'Failed to set attribute "Foo" for job {c}.0.\n' + failed,
    )
    # -constraint alone chooses among the user's own jobs: none of mallory's match.
    code, _, err = _run(schedd, "condor_qedit", "-constraint", "true", "Foo", "4", env=mallory)
    assert code == 1 and err.startswith('Failed to set attribute "Foo" by constraint: true')
    m = schedd.call(_tcp_client(schedd, "mallory").submit, cluster(schedd.root), procs(1))
    assert _run(schedd, "condor_qedit", "-constraint", "true", "Foo", "5", env=mallory)[:2] == (
        0,
        'Set attribute "Foo" for 1 matching jobs.\n',
    )
    assert _run(schedd, "condor_q", "-af", "Foo", "-allusers")[1].split() == ["2", "2", "5"]
    assert m == c + 1
    assert _run(schedd, "condor_qedit", f"{c}.0", "Foo")[0] == 1
    assert _run(schedd, "condor_qedit", "Foo", "1")[0] == 1


def test_prio_names_what_it_could_not_change_and_still_exits_0(schedd):
    c = _submit(schedd, 1)
    assert _run(schedd, "condor_prio", "-p", "3", f"{c}.0") == (0, "", "")
    assert _run(schedd, "condor_prio", "+1", f"{c}.4") == (
        0,
        "",
        f"Couldn't retrieve current priority for {c}.4.\n",
    )
    assert _run(schedd, "condor_prio", "+1", f"{c}.0", env=_as(schedd, "mallory")) == (
        0,
        "",
        f"Couldn't set new priority for {c}.0.\n",
    )
    assert _run(schedd, "condor_prio", "+1", str(c + 7)) == (0, "", "")
    assert _run(schedd, "condor_q", f"{c}.0", "-af", "JobPrio")[1] == "3\n"
    assert _run(schedd, "condor_prio", f"{c}.0")[0] == 1  # no priority given


def test_queries_that_match_nothing_are_no_error(schedd):
    c = _submit(schedd, 1)
    code, out, err = _run(schedd, "condor_q", f"{c + 5}.0")
    assert code == 0 and err == ""
    assert "Total for query: 0 jobs;" in out
    assert _run(schedd, "condor_history", str(c + 5))[0] == 0
    assert _run(schedd, "condor_q", "-nosuchoption")[0] == 1
