"""condor_submit -spool and condor_transfer_data on a real pool: the input files travel with
the job (the originals may go), the output waits in the schedd's spool with the completed
job, and condor_transfer_data brings it home, after which the job leaves the queue."""

from __future__ import annotations

from condorx.testing.pool import wait_for


def queue(pool, *args: str) -> list[list[str]]:
    out = pool.cli("condorx.cli.q", *args, "-af", "ClusterId", "JobStatus").stdout
    return [ln.split() for ln in out.splitlines()]


def test_spooled_jobs_output_comes_home_with_condor_transfer_data(running):
    src = running.root / "src"
    src.mkdir()
    (src / "job.sh").write_text("#!/bin/sh\ncat data.txt\necho made > result.txt\n")
    (src / "job.sh").chmod(0o755)
    (src / "data.txt").write_text("the input\n")
    (src / "job.sub").write_text(
        "executable = job.sh\ntransfer_input_files = data.txt\n"
        "transfer_output_files = result.txt\noutput = out.txt\nerror = err.txt\nqueue\n"
    )
    out = running.cli("condorx.cli.submit", "-spool", "job.sub", cwd=src).stdout
    c = int(out.strip().split()[-1].rstrip("."))
    (src / "data.txt").unlink()  # the job has its own copy now
    # Completed, it stays in the queue: its output is in the spool, not yet here.
    wait_for(lambda: queue(running, str(c)) == [[str(c), "4"]], "the job to complete")
    assert not (src / "out.txt").exists() and not (src / "result.txt").exists()

    r = running.cli("condorx.cli.transfer_data", str(c))
    assert (r.stdout, r.stderr) == ("Fetching data files...\n", "")
    assert (src / "out.txt").read_text() == "the input\n"
    assert (src / "result.txt").read_text() == "made\n"
    wait_for(lambda: queue(running, str(c)) == [], "the fetched job to leave the queue")

    # Nothing chosen is no error; nothing named is.
    r = running.cli("condorx.cli.transfer_data", "-all")
    assert (r.returncode, r.stdout) == (0, "Fetching data files...\n")
    r = running.cli("condorx.cli.transfer_data", check=False)
    assert r.returncode == 1 and r.stderr.startswith("You did not specify any jobs")
