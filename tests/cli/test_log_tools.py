"""The tools that read job event logs (condor_wait, condor_check_userlogs, condor_userlog),
on logs a real pool writes, with HTCondor's own reader (htcondor2.JobEventLog) as the
oracle for condorx's reading of them."""

from __future__ import annotations

import htcondor2

from condorx.language import eventlog
from condorx.testing.pool import wait_for


def test_condor_wait_returns_when_the_jobs_are_done_and_the_logs_read_as_htcondor_reads_them(
    running,
):
    c = running.submit(
        "executable = /bin/sh\narguments = \"-c 'exit $(Process)'\"\nlog = job.log\nqueue 2\n",
    )
    # condor_wait itself waits: it follows the log as the jobs run.
    r = running.cli("condorx.cli.wait", "-status", "-wait", "60", "job.log")
    assert r.stdout.splitlines()[-1] == "All jobs done.", r.stdout
    assert f"{c}.0.0 submitted" in r.stdout and f"{c}.1.0 completed" in r.stdout
    assert f"{c}.0.0 executing on host <" in r.stdout
    log = running.root / "job.log"
    ours = [
        (e.number, e.cluster, e.proc, int(e.time), e.host(), e.return_value())
        for e in eventlog.parse_events(log.read_text())
    ]
    theirs = []
    for e in htcondor2.JobEventLog(str(log)).events(stop_after=0):
        host = e["ExecuteHost"] if e.type == htcondor2.JobEventType.EXECUTE else ""
        code = e["ReturnValue"] if e.type == htcondor2.JobEventType.JOB_TERMINATED else None
        theirs.append((int(e.type), e.cluster, e.proc, int(e.timestamp), host, code))
    assert ours == theirs
    assert sorted(code for *_, code in ours if code is not None) == [0, 1]

    checked = running.cli("condorx.cli.check_userlogs", "job.log")
    assert checked.stdout.splitlines()[-1] == "Log(s) are okay"
    assert checked.stdout.count("Log event: ULOG_JOB_TERMINATED") == 2
    assert f"Log event: ULOG_SUBMIT ({c}.1.0)" in checked.stdout

    rows = running.cli("condorx.cli.userlog", "job.log").stdout.splitlines()
    assert rows[1].split()[:2] == ["Job", "Host"]
    # One row per run (job, host, ...), then by host, then one per job, then the total.
    runs = rows[2:4]
    assert sorted(ln.split()[:2] for ln in runs) == [
        [f"{c}.0", "127.0.0.1"],
        [f"{c}.1", "127.0.0.1"],
    ]
    assert rows[5].startswith("Host/Job") and rows[7].startswith("127.0.0.1")
    assert [ln.split()[0] for ln in rows[9:11]] == [f"{c}.0", f"{c}.1"]
    assert rows[-1].startswith("Total")


def test_condor_wait_gives_up_on_a_job_that_does_not_end(running):
    c = running.submit("executable = /bin/true\nhold = true\nlog = held.log\nqueue\n")
    wait_for(lambda: (running.root / "held.log").exists(), "the submit event")
    r = running.cli("condorx.cli.wait", "-wait", "1", "held.log", f"{c}.0", check=False)
    assert (r.returncode, r.stdout) == (1, "Time expired.\n")
    # -wait 0 reads to the end and stops there: the job is pending, and that is no error.
    r = running.cli("condorx.cli.wait", "-wait", "0", "held.log", check=False)
    assert (r.returncode, r.stdout) == (0, "")
    checked = running.cli("condorx.cli.check_userlogs", "held.log", check=False)
    assert checked.returncode == 1
    assert checked.stdout.splitlines()[-1] == "Log(s) have error(s)"
    assert f"BAD EVENT: job ({c}.0.0) ended, total end count != 1 (0)" in checked.stderr
