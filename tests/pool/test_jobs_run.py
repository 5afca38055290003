"""Jobs really run: a personal pool of real daemons (collector, negotiator, startd,
schedd) on loopback, driven with condor_submit and watched with condor_q/history."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

import pytest

from condorx.testing.pool import QUICK_POOL as POOL
from condorx.testing.pool import wait_for, wait_for_pid
from condorx.testing.pool_views import history, queue
from condorx.testing.procs import descendants, job_running, job_stopped


def test_jobs_run_and_their_output_comes_back(running):
    c = running.submit(
        """
executable = /bin/sh
arguments = "-c 'echo hello from $1; echo oops >&2; exit $2' job $(Process) $(Process)"
output = out.$(Process)
error = err.$(Process)
log = job.log
queue 3
""",
    )
    done = wait_for(lambda: len(history(running, "ProcId")) == 3, "three jobs to finish")
    assert done
    rows = sorted(history(running, "ClusterId", "ProcId", "JobStatus", "ExitCode", "ExitBySignal"))
    assert rows == [[str(c), str(p), "4", str(p), "false"] for p in range(3)]
    for p in range(3):
        assert (running.root / f"out.{p}").read_text() == f"hello from {p}\n"
        assert (running.root / f"err.{p}").read_text() == "oops\n"
    log = (running.root / "job.log").read_text()
    assert log.count("Job executing on host") == 3 and log.count("Job terminated.") == 3
    assert "(1) Normal termination (return value 2)" in log


def test_a_job_factory_runs_all_its_jobs_a_few_at_a_time(running):
    """max_materialize = 2 of 5: each job that finishes makes room for the next, until
    all five ran; then the cluster, and its factory's rows, leave the queue."""
    c = running.submit(
        "executable = /bin/sh\n"
        "arguments = \"-c 'echo job $1' x $(Process)\"\n"
        "output = out.$(Process)\nlog = job.log\nmax_materialize = 2\nqueue 5\n"
    )
    wait_for(lambda: len(history(running, "ProcId")) == 5, "five jobs to finish")
    rows = sorted(history(running, "ClusterId", "ProcId", "JobStatus", "ExitCode"))
    assert rows == [[str(c), str(p), "4", "0"] for p in range(5)]
    for p in range(5):
        assert (running.root / f"out.{p}").read_text() == f"job {p}\n"
    log = (running.root / "job.log").read_text()
    assert log.count("Job submitted from host") == 5 and log.count("Job terminated.") == 5
    wait_for(lambda: queue(running, "ProcId") == [], "the cluster to leave")
    assert not list(running.root.rglob("condorx_submit.*"))


@pytest.mark.parametrize(
    ("transfer", "code", "err", "reason"),
    [
        # The job ran, but the schedd cannot store its output (code 12, DownloadFileError).
        ("YES", "12", errno.EEXIST, "Cannot make directory {blocker} for output file"),
        # On a shared file system the starter cannot open it (code 7, UnableToOpenOutput).
        ("NO", "7", errno.ENOTDIR, "cannot open {blocker}/out: Not a directory"),
    ],
)
def test_output_that_cannot_be_written_holds_the_job(running, transfer, code, err, reason):
    blocker = running.root / "results"
    blocker.write_text("a file where the output's directory should be\n")
    c = running.submit(
        "executable = /bin/echo\narguments = hi\noutput = results/out\n"
        f"should_transfer_files = {transfer}\nqueue\n",
    )
    wait_for(lambda: queue(running, "JobStatus") == [["5"]], "the job to be held")
    (row,) = queue(running, "ClusterId", "HoldReasonCode", "HoldReasonSubCode", "HoldReason")
    assert row[:3] == [str(c), code, str(err)]
    assert reason.format(blocker=blocker) in " ".join(row[3:])
    assert history(running, "ClusterId") == []  # held, never completed without its output


def test_a_listed_output_the_job_did_not_make_holds_it_in_htcondors_words(running):
    # HTCondor's file transfer fails on the missing file (its errno the subcode), sends
    # the rest, and its shadow holds the job: code 12, TransferOutputError.
    c = running.submit(
        "executable = /bin/sh\narguments = \"-c 'echo made > made.txt'\"\n"
        "should_transfer_files = YES\ntransfer_output_files = made.txt, missing.txt\nqueue\n",
    )
    wait_for(lambda: queue(running, "JobStatus") == [["5"]], "the job to be held")
    (row,) = queue(running, "HoldReasonCode", "HoldReasonSubCode", "HoldReason", "LastRemoteHost")
    code, subcode, reason, slot = row[0], row[1], " ".join(row[2:-1]), row[-1]
    assert (code, subcode) == ("12", str(errno.ENOENT))
    host = socket.gethostname().split(".")[0]
    head = f"Transfer output files failure at execution point {slot} while sending files to"
    assert reason.startswith(f"{head} access point {host}. Details: reading from file /")
    assert reason.endswith("/missing.txt: (errno 2) No such file or directory")
    assert (running.root / "made.txt").read_text() == "made\n"
    assert history(running, "ClusterId") == [] and c


def test_an_input_file_that_is_not_there_holds_the_job_in_htcondors_words(running):
    running.submit(
        "executable = /bin/true\nshould_transfer_files = YES\n"
        "transfer_input_files = absent.txt\nqueue\n",
    )
    wait_for(lambda: queue(running, "JobStatus") == [["5"]], "the job to be held")
    (row,) = queue(running, "HoldReasonCode", "HoldReasonSubCode", "HoldReason")
    assert row[:2] == ["13", str(errno.ENOENT)]
    reason = " ".join(row[2:])
    host = socket.gethostname().split(".")[0]
    assert reason.startswith(f"Transfer input files failure at access point {host} while sending")
    absent = running.root / "absent.txt"
    assert reason.endswith(f"reading from file {absent}: (errno 2) No such file or directory")


def test_a_job_killed_by_a_signal_is_recorded_so(running):
    running.submit("executable = /bin/sh\narguments = \"-c 'kill -9 $$'\"\nqueue\n")
    wait_for(lambda: history(running, "ProcId"), "the job to finish")
    assert history(running, "ExitBySignal", "ExitSignal", "JobStatus") == [["true", "9", "4"]]


def test_file_transfer_runs_the_job_in_a_sandbox(running):
    (running.root / "input.txt").write_text("abc\n")
    running.submit(
        """
executable = /bin/sh
arguments = "-c 'tr a-z A-Z < input.txt > result.txt; pwd'"
should_transfer_files = YES
transfer_input_files = input.txt
output = where
queue
""",
    )
    wait_for(lambda: history(running, "ProcId"), "the job to finish")
    assert (running.root / "result.txt").read_text() == "ABC\n"
    sandbox = (running.root / "where").read_text().strip()
    assert sandbox.startswith(str(running.root / "execute"))
    # Kept, emptied, for the claim's next job; it goes with the claim.
    wait_for(lambda: not os.path.exists(sandbox), "the sandbox to go with its claim")


def test_a_job_never_sees_what_the_one_before_it_on_its_claim_left(pool):
    with open(pool.config_file, "a") as f:
        f.write(POOL + "NUM_CPUS = 1\n")  # one slot: the jobs run one after the other
    pool.reload()
    pool.start("collector", "negotiator", "startd", "schedd")
    pool.submit(
        """
executable = /bin/sh
arguments = "-c 'pwd; ls -A; echo left > junk; mkdir -p d/e; echo x > d/e/f'"
should_transfer_files = YES
output = where.$(Process)
queue 3
""",
    )
    wait_for(lambda: len(history(pool, "ProcId")) == 3, "the three jobs to finish")
    seen = [(pool.root / f"where.{p}").read_text().splitlines() for p in range(3)]
    assert all(lines[1:] == ["_condor_stderr", "_condor_stdout", "sh"] for lines in seen), seen
    # One claim ran them all, each in the same directory, emptied in between.
    assert len({lines[0] for lines in seen}) == 1


def test_condor_rm_of_a_running_job_kills_its_process_tree(running):
    pids = running.root / "pids"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'sleep 300 & echo $! > {pids}; echo $$ >> {pids}; wait'"
queue
""",
    )
    wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, "the job to start")
    assert queue(running, "JobStatus") == [["2"]]
    running.cli("condorx.cli.act:rm", str(c))
    wait_for(lambda: history(running, "JobStatus") == [["3"]], "the removed job to leave")
    for pid in map(int, pids.read_text().split()):
        wait_for(lambda pid=pid: not _alive(pid), f"process {pid} to be gone")


def test_a_startd_killed_mid_job_requeues_the_job_and_it_completes_later(running):
    marker = running.root / "started"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'if [ -e {marker} ]; then echo second; else touch {marker}; sleep 300; fi'"
output = out
log = job.log
queue
""",
    )
    wait_for(lambda: marker.exists(), "the first run to start")
    startd = running.daemon("startd").proc
    assert startd is not None
    # The starter, the job's shell and its sleep (and the starters' fork server).
    started = descendants(startd.pid)
    assert len(started) >= 3
    running.daemon("startd").kill9()
    for pid in started:  # nothing the startd started outlives it
        wait_for(lambda pid=pid: not _alive(pid), f"process {pid} to be gone")
    wait_for(lambda: queue(running, "JobStatus") == [["1"]], "the job to be requeued")
    running.daemon("startd").start()
    wait_for(lambda: history(running, "ClusterId") == [[str(c)]], "the job to complete")
    assert (running.root / "out").read_text().endswith("second\n")
    assert "Job was evicted." in (running.root / "job.log").read_text()
    assert history(running, "NumJobStarts") == [["2"]]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


def test_suspend_stops_the_process_tree_and_continue_resumes_it(running):
    pids = running.root / "pids"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'sleep 300 & echo $! > {pids}; echo $$ >> {pids}; wait'"
log = job.log
queue
""",
    )
    wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, "the job to start")
    procs = [int(p) for p in pids.read_text().split()]
    running.cli("condorx.cli.act:suspend", str(c))
    assert queue(running, "JobStatus") == [["7"]]
    # The CLI returns once the startd has passed the signal on to the starter.
    wait_for(lambda: job_stopped(procs[1]), "the whole tree to be stopped")
    running.cli("condorx.cli.act:resume", str(c))
    assert queue(running, "JobStatus", "TotalSuspensions") == [["2", "1"]]
    wait_for(lambda: job_running(procs[1]), "the whole tree to go on")
    running.cli("condorx.cli.act:rm", str(c))
    wait_for(lambda: history(running, "JobStatus") == [["3"]], "the removed job to leave")
    log = (running.root / "job.log").read_text()
    assert "Job was suspended." in log and "Job was unsuspended." in log


def test_periodic_hold_stops_a_running_job(running):
    with open(running.config_file, "a") as f:
        f.write("PERIODIC_EXPR_INTERVAL = 1\n")
    running.reload()
    running.daemon("schedd").stop()
    running.daemon("schedd").start()
    pids = running.root / "pids"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'echo $$ > {pids}; sleep 300'"
periodic_hold = JobStatus == 2 && time() - EnteredCurrentStatus > 1
queue
""",
    )
    pid = wait_for_pid(pids)
    wait_for(
        lambda: queue(running, "JobStatus", "HoldReasonCode") == [["5", "3"]],
        "the policy to hold the job",
    )
    wait_for(lambda: not _alive(pid), "the held job's process to be killed")
    assert queue(running, "ClusterId") == [[str(c)]]


def test_a_schedd_killed_mid_job_ends_the_claim_and_reruns_the_job_after_restart(running):
    pids = running.root / "pids"
    marker = running.root / "ran-once"
    once = f"if [ -e {marker} ]; then echo again; else touch {marker}; sleep 300; fi"
    c = running.submit(
        f"""
executable = /bin/sh
arguments = "-c 'echo $$ >> {pids}; {once}'"
output = out
queue
""",
    )
    wait_for(lambda: marker.exists(), "the first run to start")
    first = int(pids.read_text().split()[0])
    running.daemon("schedd").kill9()
    wait_for(lambda: not _alive(first), "the orphaned job to be killed by its startd")
    running.daemon("schedd").start()
    wait_for(
        lambda: history(running, "ClusterId", "JobStatus") == [[str(c), "4"]],
        "the job to run again and complete",
    )
    assert (running.root / "out").read_text().endswith("again\n")
