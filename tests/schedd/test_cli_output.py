"""The output programs parse, exactly as HTCondor 24/25 prints it, from a real schedd:
condor_q and condor_history -af (every qualifier), -format, -json, -xml, -long, -limit,
-userlog; condor_rm's answers, -forcex, -all, -constraint, and LeaveJobInQueue keeping a
removed job in X."""

from __future__ import annotations

import getpass
import json

from jobs import cluster, procs
from test_submit_query import _rows

from condorx.transport.wire import Expr

ME = getpass.getuser()


def _submit(schedd, n=1, **extra):
    return schedd.call(schedd.client().submit, cluster(schedd.root, **extra), procs(n))


def _q(schedd, *args, check=True):
    return schedd.cli("condor_q", *args, check=check)


# -- condor_q -af ---------------------------------------------------------------------------


def test_af_plain_and_qualifiers(schedd):
    c = _submit(schedd, 2)
    job = f"{c}.0"
    assert _q(schedd, job, "-af", "JobStatus", "Owner", "Missing").stdout == (f"1 {ME} undefined\n")
    assert _q(schedd, job, "-af:j", "JobStatus").stdout == f"{c}.0 1\n"
    assert _q(schedd, job, "-af:jr", "JobStatus").stdout == f"{c}.0 1\n"
    assert _q(schedd, job, "-af:r", "Requirements", "Missing").stdout == (
        '(TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64") undefined\n'
    )
    assert _q(schedd, job, "-af:V", "Owner", "JobStatus").stdout == f'"{ME}" 1\n'
    assert _q(schedd, job, "-af:l", "JobStatus", "Owner").stdout == (
        f"JobStatus = 1 Owner = {ME}\n"
    )
    assert _q(schedd, job, "-af:jl", "JobStatus").stdout == f"ID = {c}.0 JobStatus = 1\n"
    assert _q(schedd, job, "-af:,", "JobStatus", "ProcId").stdout == "1, 0\n"
    assert _q(schedd, job, "-af:t", "JobStatus", "ProcId").stdout == "1\t0\n"
    assert _q(schedd, job, "-af:n", "JobStatus", "ProcId").stdout == "1\n 0\n"
    assert _q(schedd, str(c), "-af:g", "JobStatus", "ProcId").stdout == "\n10\n\n11\n"
    assert _q(schedd, job, "-af:lrng", "JobStatus", "Owner").stdout == (
        f'\nJobStatus = 1\nOwner = "{ME}"\n'
    )
    # T and Y: HTCondor 24/25 defines no such qualifier and ignores them; so do we
    assert _q(schedd, job, "-af:TY", "JobStatus").stdout == "1\n"
    assert _q(schedd, job, "-autoformat", "ProcId + 10").stdout == "10\n"


def test_af_asks_for_what_it_reads_and_evaluates_as_over_the_whole_ad(schedd):
    # condor_q -af and -format fetch only the attributes their expressions read; an
    # attribute that reads others (here through two more) still evaluates as it would
    # over the whole ad, because the schedd sends those too.
    c = _submit(
        schedd,
        Wanted=Expr("Base * Factor + 1"),
        Base=Expr("Seed + 40"),
        Seed=1,
        Factor=2,
        Unrelated=7,
    )
    job = f"{c}.0"
    assert _q(schedd, job, "-af", "Wanted", "MY.Wanted * 2").stdout == "83 166\n"
    assert _q(schedd, job, "-format", "%d\n", "Wanted - 3").stdout == "80\n"
    assert _q(schedd, job, "-af:r", "Wanted").stdout == "Base * Factor + 1\n"
    assert _q(schedd, job, "-af:j", "TARGET.Wanted", "Unrelated").stdout == f"{c}.0 undefined 7\n"

    async def projected(client):
        query = client.query_ads(f"ClusterId == {c}", projection=["Wanted"])
        return [ad async for chunk in query for ad in chunk]

    (ad,) = schedd.call(projected, schedd.client())
    assert sorted(ad.keys()) == ["Base", "Factor", "Seed", "Wanted"]


def test_af_headings(schedd):
    c = _submit(schedd, 2)
    out = _q(schedd, str(c), "-af:h", "ProcId", "Owner").stdout
    w = max(len(ME), 5)
    assert out == (f"ProcId {'Owner':<{w}}\n0      {ME:<{w}}\n1      {ME:<{w}}\n")
    out = _q(schedd, str(c), "-af:jh", "JobStatus").stdout.splitlines()
    assert out[0] == " ID      JobStatus"
    assert out[1] == f"{c:>4}.0   1        "


def test_format_is_printf(schedd):
    c = _submit(schedd, 2)
    out = _q(schedd, str(c), "-format", "%d.", "ClusterId", "-format", "%d\\n", "ProcId").stdout
    assert out == f"{c}.0\n{c}.1\n"
    out = _q(
        schedd,
        f"{c}.1",
        "-format",
        "%s|",
        "Owner",
        "-format",
        "%-4d|",
        "JobStatus",
        "-format",
        "%V|",
        "Owner",
        "-format",
        "%d|",
        "Owner",
        "-format",
        "%5.1f\\n",
        "JobPrio",
    ).stdout
    assert out == f'{ME}|1   |"{ME}"|  0.0\n'  # %d of a string: that format prints nothing


# -- whole ads -------------------------------------------------------------------------------


def test_json_layout_and_empty(schedd):
    c = _submit(schedd, 2)
    out = _q(schedd, str(c), "-json", "-attributes", "ProcId,ClusterId,Owner").stdout
    assert out == (
        "[\n"
        f'{{\n  "ClusterId": {c},\n  "Owner": "{ME}",\n  "ProcId": 0\n}}\n'
        ",\n"
        f'{{\n  "ClusterId": {c},\n  "Owner": "{ME}",\n  "ProcId": 1\n}}\n'
        "]\n"
    )
    full = json.loads(_q(schedd, str(c), "-json").stdout)
    assert [ad["ProcId"] for ad in full] == [0, 1]
    assert full[0]["Requirements"].startswith("/Expr(")
    # nothing at all when no job matches
    assert _q(schedd, "-constraint", "false", "-json").stdout == ""


def test_long_is_sorted_with_a_blank_line_after_each_ad(schedd):
    c = _submit(schedd, 2)
    out = _q(schedd, str(c), "-long").stdout
    ads = out.split("\n\n")
    assert ads[-1] == "" and len(ads) == 3
    names = [ln.split(" = ")[0] for ln in ads[0].splitlines()]
    assert names == sorted(names, key=str.lower)
    assert f"ClusterId = {c}" in ads[0] and "ProcId = 1" in ads[1]
    assert 'Requirements = (TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64")' in out
    assert _q(schedd, "-constraint", "false", "-long").stdout == ""


def test_xml(schedd):
    c = _submit(schedd, 1)
    out = _q(schedd, str(c), "-xml", "-attributes", "ClusterId,Owner,Requirements").stdout
    assert out == (
        '<?xml version="1.0"?>\n<!DOCTYPE classads SYSTEM "classads.dtd">\n<classads>\n'
        "<c>\n"
        f'    <a n="ClusterId"><i>{c}</i></a>\n'
        f'    <a n="Owner"><s>{ME}</s></a>\n'
        '    <a n="Requirements"><e>(TARGET.Memory &gt;= RequestMemory) &amp;&amp; '
        '(TARGET.Arch == "X86_64")</e></a>\n'
        "</c>\n</classads>\n"
    )
    empty = _q(schedd, "-constraint", "false", "-xml").stdout
    assert empty == '<?xml version="1.0"?>\n<!DOCTYPE classads SYSTEM "classads.dtd">\n' + (
        "<classads>\n</classads>\n"
    )


def test_limit(schedd):
    c = _submit(schedd, 5)
    assert _q(schedd, str(c), "-limit", "2", "-af", "ProcId").stdout == "0\n1\n"
    table = _q(schedd, "-nobatch", "-limit", "3").stdout
    assert "Total for query: 3 jobs" in table


def test_totals_are_counted_by_the_schedd_as_the_table_counts_them(schedd):
    c = _submit(schedd, 4)
    schedd.cli("condor_hold", f"{c}.1", f"{c}.3")
    d = _submit(schedd, 1)
    for args in ([], [str(c)], ["-constraint", "JobStatus == 5"], ["-allusers"]):
        table = _q(schedd, "-nobatch", *args).stdout.splitlines()
        totals = _q(schedd, "-totals", *args).stdout.splitlines()
        assert totals == [line for line in table if line.startswith("Total for ")], args
    assert _q(schedd, "-totals", str(c)).stdout == (
        "Total for query: 4 jobs; 0 completed, 0 removed, 2 idle, 0 running, 2 held, 0 suspended\n"
    )
    schedd.cli("condor_rm", str(c), str(d))


def test_userlog(schedd):
    c = _submit(schedd, 2, UserLog="job.log")
    schedd.cli("condor_hold", f"{c}.1")
    log = str(schedd.root / "job.log")
    out = _q(schedd, "-userlog", log, "-af:j", "JobStatus", "HoldReasonCode").stdout
    assert out == f"{c}.0 1 undefined\n{c}.1 5 1\n"
    table = _q(schedd, "-userlog", log, "-nobatch").stdout
    assert "Total for query: 2 jobs; 0 completed, 0 removed, 1 idle, 0 running, 1 held" in table


# -- condor_history ------------------------------------------------------------------------


def test_history_af_json_and_limit(schedd):
    c = _submit(schedd, 3)
    schedd.cli("condor_rm", str(c))
    h = schedd.cli("condor_history", "-af:j", "JobStatus").stdout
    assert h == f"{c}.2 3\n{c}.1 3\n{c}.0 3\n"
    h = schedd.cli("condor_history", "-limit", "1", "-af:,", "ProcId", "JobStatus").stdout
    assert h == "2, 3\n"
    h = schedd.cli("condor_history", "-json", "-attributes", "ProcId", "-limit", "2").stdout
    assert h == '[\n{\n  "ProcId": 2\n}\n,\n{\n  "ProcId": 1\n}\n]\n'
    assert schedd.cli("condor_history", "-constraint", "false", "-json").stdout == ""
    h = schedd.cli(
        "condor_history", f"{c}.0", "-format", "%d:", "ProcId", "-format", "%s\\n", "Owner"
    ).stdout
    assert h == f"0:{ME}\n"
    h = schedd.cli("condor_history", f"{c}.0", "-long").stdout
    assert h.endswith("\n\n") and "JobStatus = 3\n" in h


# -- condor_rm --------------------------------------------------------------------------------


def test_rm_answers_as_htcondor(schedd):
    c = _submit(schedd, 3)
    r = schedd.cli("condor_rm", f"{c}.0", f"{c}.7", check=False)
    assert r.stdout == f"Job {c}.0 marked for removal\n"
    assert r.stderr == f"Job {c}.7 not found\n"
    # As HTCondor's (the schedd's ActionResult): one of the ids was removed, so success.
    assert r.returncode == 0
    r = schedd.cli("condor_rm", f"{c}.8", f"{c}.9", check=False)
    assert r.stderr == f"Job {c}.8 not found\nJob {c}.9 not found\n"
    assert r.returncode == 1
    r = schedd.cli("condor_rm", str(c))
    assert r.stdout == f"All jobs in cluster {c} have been marked for removal\n"
    d = _submit(schedd, 2)
    r = schedd.cli("condor_rm", "-constraint", f"ClusterId == {d} && ProcId == 1")
    assert r.stdout == (
        f"All jobs matching constraint (ClusterId == {d} && ProcId == 1) have been marked"
        " for removal\n"
    )
    r = schedd.cli("condor_rm", ME)
    assert r.stdout == f'All jobs of user "{ME}" have been marked for removal\n'
    assert _rows(schedd, ["ProcId"]) == []
    r = schedd.cli("condor_rm", "-all", check=False)
    assert r.returncode == 0
    assert r.stderr == "condor_rm:0:There are no jobs in the queue\n"
    e = _submit(schedd, 2)
    r = schedd.cli("condor_rm", "-all")
    assert r.stdout == "All jobs have been marked for removal\n"
    assert _rows(schedd, ["ProcId"], f"ClusterId == {e}") == []
    f = _submit(schedd, 1)
    r = schedd.cli("condor_rm", "-constraint", "ProcId == 99", check=False)
    assert r.returncode == 1
    assert r.stderr == ("\nCouldn't find/remove all jobs matching constraint (ProcId == 99)\n")
    assert _rows(schedd, ["ClusterId"]) == [[f]]


def test_leave_job_in_queue_keeps_a_removed_job_in_x_until_forcex(schedd):
    c = _submit(schedd, 2, LeaveJobInQueue=True)
    schedd.cli("condor_rm", str(c))
    assert _rows(schedd, ["ProcId", "JobStatus"], f"ClusterId == {c}") == [[0, 3], [1, 3]]
    r = schedd.cli("condor_rm", f"{c}.0", check=False)
    assert r.stderr == f"Job {c}.0 already marked for removal\n" and r.returncode == 1
    r = schedd.cli("condor_rm", "-forcex", f"{c}.0")
    assert r.stdout == f"Job {c}.0 removed locally (remote state unknown)\n"
    assert _rows(schedd, ["ProcId"], f"ClusterId == {c}") == [[1]]
    hist = schedd.cli("condor_history", "-af:j", "JobStatus").stdout
    assert hist == f"{c}.0 3\n"
    # -forcex names only jobs already in X
    d = _submit(schedd, 1)
    r = schedd.cli("condor_rm", "-forcex", f"{d}.0", check=False)
    assert r.stderr == f"Job {d}.0 not in `X' state to be forcibly removed\n"
    assert _rows(schedd, ["JobStatus"], f"ClusterId == {d}") == [[1]]
    r = schedd.cli("condor_rm", "-forcex", "-constraint", f"ClusterId == {c}")
    assert r.stdout == (
        f"All jobs matching constraint (ClusterId == {c}) have been removed locally"
        " (remote state unknown)\n"
    )
    assert _rows(schedd, ["ProcId"], f"ClusterId == {c}") == []


def test_leave_job_in_queue_turning_false_lets_the_removed_job_go(schedd):
    c = _submit(schedd, 1, LeaveJobInQueue=Expr("KeepMe =?= true"), KeepMe=True)
    schedd.cli("condor_rm", f"{c}.0")
    assert _rows(schedd, ["JobStatus"], f"ClusterId == {c}") == [[3]]
    schedd.cli("condor_qedit", f"{c}.0", "KeepMe", "false")
    assert _rows(schedd, ["JobStatus"], f"ClusterId == {c}") == []
    assert schedd.cli("condor_history", "-af", "ClusterId").stdout == f"{c}\n"


def test_hold_release_answers(schedd):
    c = _submit(schedd, 1)
    assert schedd.cli("condor_hold", f"{c}.0").stdout == f"Job {c}.0 held\n"
    r = schedd.cli("condor_hold", f"{c}.0", check=False)
    assert r.stderr == f"Job {c}.0 already held\n"
    assert schedd.cli("condor_release", f"{c}.0").stdout == f"Job {c}.0 released\n"
    r = schedd.cli("condor_release", f"{c}.0", check=False)
    assert r.stderr == f"Job {c}.0 not held to be released\n"


def test_every_tool_lists_its_options(schedd):
    for tool, wanted in [
        (
            "condor_q",
            ["-autoformat", "-format", "-json", "-xml", "-limit", "-userlog", "-better-analyze"],
        ),
        ("condor_rm", ["-forcex", "-constraint", "-all"]),
        ("condor_history", ["-autoformat", "-json", "-xml", "-limit"]),
    ]:
        r = schedd.cli(tool, "--help")
        out = r.stdout + r.stderr  # condor_rm's usage goes to stderr, as HTCondor's does
        for opt in wanted:
            assert opt in out, (tool, opt)
