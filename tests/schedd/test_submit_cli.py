"""condor_submit against a real schedd: the jobs land in the queue as described."""

from __future__ import annotations

from test_submit_query import _rows


def test_condor_submit_queues_the_described_jobs(schedd):
    (schedd.root / "job.sub").write_text(
        "executable = /bin/echo\n"
        "arguments = run $(Process) of $(Cluster)\n"
        "output = out.$(Cluster).$(Process)\n"
        "log = job.log\n"
        "request_memory = 1 GB\n"
        '+Project = "demo"\n'
        "queue 3\n"
    )
    out = schedd.cli("condor_submit", "job.sub").stdout
    assert out.startswith("Submitting job(s)...")
    cluster = int(out.strip().splitlines()[-1].split()[-1].rstrip("."))
    assert out.strip().endswith(f"3 job(s) submitted to cluster {cluster}.")
    rows = _rows(schedd, ["ProcId", "Args", "Out", "RequestMemory", "Project", "JobStatus"])
    root = schedd.root
    # Out as written, as HTCondor keeps it: the schedd reads it against Iwd.
    assert rows == [
        [p, f"run {p} of {cluster}", f"out.{cluster}.{p}", 1024, "demo", 1] for p in range(3)
    ]
    assert (root / "job.log").read_text().count("Job submitted from host") == 3


def test_terse_output_and_command_line_macros(schedd):
    (schedd.root / "job.sub").write_text("executable = /bin/true\narguments = $(word)\nqueue 2\n")
    out = schedd.cli("condor_submit", "-terse", "word=hello", "job.sub").stdout.strip()
    first, _, last = out.partition(" - ")
    assert first.endswith(".0") and last.endswith(".1")
    assert _rows(schedd, ["Args"]) == [["hello"], ["hello"]]


def test_a_bad_description_is_refused_with_its_line_and_nothing_is_queued(schedd):
    (schedd.root / "bad.sub").write_text("executable = /bin/true\nrequest_memory = 12 XB\nqueue\n")
    r = schedd.cli("condor_submit", "bad.sub", check=False)
    assert r.returncode == 1
    assert "bad.sub, line 2" in r.stderr and "Traceback" not in r.stderr
    assert _rows(schedd, ["ClusterId"]) == []
