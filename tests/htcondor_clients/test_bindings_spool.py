"""Remote submission with files through HTCondor's bindings: `Schedd.submit(spool=True)`
queues the job held for its input files (its ad rewritten to run from its spool
directory, the submitter's paths kept as SUBMIT_*), `Schedd.spool()` sends them over
HTCondor's file-transfer protocol and the job is released, it runs, and
`Schedd.retrieve()` brings its output back where the submitter's paths say; then the job
leaves the queue."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing import bindings
from condorx.testing.pool import QUICK_POOL, LocalPool

SPOOL = """
import htcondor2 as htcondor, os, time
os.chdir({work!r})
schedd = htcondor.Schedd()
sub = htcondor.Submit({{
    "executable": "run.sh",
    "arguments": "x",
    "transfer_input_files": "in.txt",
    "output": "outdir/out.txt",
    "error": "err.txt",
    "log": "job.log",
}})
res = schedd.submit(sub, spool=True)
c = res.cluster()
names = ["JobStatus", "HoldReasonCode", "Iwd", "SUBMIT_Iwd", "Out", "SUBMIT_TransferOutputRemaps"]
held = dict(schedd.query(f"ClusterId == {{c}}", names)[0])
schedd.spool(res)
released = dict(schedd.query(f"ClusterId == {{c}}", ["JobStatus", "StageInFinish"])[0])
try:
    schedd.spool(res)  # a job takes its input files once
    again = "accepted"
except Exception as e:
    again = type(e).__name__
for _ in range(120):
    ads = schedd.query(f"ClusterId == {{c}}", ["JobStatus"])
    if ads and ads[0]["JobStatus"] == 4:
        break
    time.sleep(0.5)
status = ads[0]["JobStatus"]
schedd.retrieve(f"{{c}}")
for _ in range(20):
    left = schedd.query(f"ClusterId == {{c}}", ["JobStatus"])
    if not left:
        break
    time.sleep(0.5)
result({{"cluster": c, "held": held, "released": released, "again": again, "status": status,
         "left": len(left)}})
"""

RUN = "#!/bin/sh\ncat in.txt; echo arg=$1; echo oops >&2; echo made > made.txt\n"


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPool]:
    root = tmp_path_factory.mktemp("spool")
    daemons = ("collector", "negotiator", "startd", "schedd")
    with LocalPool.running(root, *daemons, config=QUICK_POOL) as pool:
        yield pool


def _work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "outdir").mkdir(parents=True)
    (work / "in.txt").write_text("hello input\n")
    (work / "run.sh").write_text(RUN)
    (work / "run.sh").chmod(0o755)
    return work


def test_spool_run_and_retrieve_through_the_bindings(running, tmp_path):
    work = _work(tmp_path)
    r = bindings.run(running, SPOOL.format(work=str(work)), timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    v = r.value
    c = v["cluster"]
    held = v["held"]
    assert (held["JobStatus"], held["HoldReasonCode"]) == (5, 16)
    assert held["SUBMIT_Iwd"] == str(work)
    assert held["Iwd"].endswith(f"cluster{c}.proc0") and held["Iwd"] != str(work)
    # HTCondor's submit code names stdout _condor_stdout and remaps it to the path given.
    assert held["Out"] == "_condor_stdout"
    assert held["SUBMIT_TransferOutputRemaps"] == "_condor_stdout=outdir/out.txt"
    assert v["released"]["JobStatus"] == 1 and v["released"]["StageInFinish"] > 0
    assert v["again"] != "accepted"
    assert v["status"] == 4
    assert (work / "outdir" / "out.txt").read_text() == "hello input\narg=x\n"
    assert (work / "err.txt").read_text() == "oops\n"
    assert (work / "made.txt").read_text() == "made\n"
    assert v["left"] == 0  # retrieved: StageOutFinish let it leave the queue
    assert not Path(held["Iwd"]).exists()  # its spool directory went with it
