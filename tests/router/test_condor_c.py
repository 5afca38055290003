"""Grid jobs handed to another condorx pool (`grid_resource = condor <schedd> <collector>`,
HTCondor's Condor-C), with two real pools on loopback: pool A submits, pool B runs.

A's schedd authenticates to B's with a token B's admin made for it; the job's input
files are spooled to B, its status shows in A while B runs it, and its output and exit
code come back. Removing or holding it in A removes it in B; B's holds reach A; a schedd
killed with -9 at any moment loses and duplicates nothing."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for

pytestmark = pytest.mark.daemons  # starts its own daemons

B_NAME = "poolb-schedd@loopback"
FAST = "GRIDMANAGER_JOB_PROBE_INTERVAL = 1\nPERIODIC_EXPR_INTERVAL = 1\n"


@pytest.fixture
def pools(open_root: Path) -> Iterator[tuple[LocalPool, LocalPool]]:
    # B runs A's jobs as nobody (A's identity has no account there): its spool and
    # execute directories must be reachable by nobody.
    (open_root / "a").mkdir(mode=0o755)
    (open_root / "b").mkdir(mode=0o755)
    a = LocalPool(open_root / "a", QUICK_POOL + FAST + "SCHEDD_NAME = poola-schedd@loopback\n")
    b = LocalPool(open_root / "b", QUICK_POOL + FAST + f"SCHEDD_NAME = {B_NAME}\n")
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def start(a: LocalPool, b: LocalPool, *, token: bool = True, startd: bool = True) -> str:
    """B's pool running (with a startd unless not wanted), A's schedd trusted by it; the
    GridResource of B's schedd."""
    wanted = ["collector", "negotiator", "schedd", *(["startd"] if startd else [])]
    b.start(*[d for d in wanted if d not in b.daemons])  # (a test may start some first)
    if token:
        made = b.cli("condorx.cli.token:create", "-identity", "poola").stdout.strip()
        tokens = a.root / "grid_tokens.d"
        tokens.mkdir(mode=0o700)
        (tokens / "poolb").write_text(made + "\n")
    a.start("collector", "schedd")
    return f"condor {B_NAME} {b.daemon('collector').address()}"


def submit(pool: LocalPool, resource: str, body: str, count: int = 1) -> int:
    text = f"universe = grid\ngrid_resource = {resource}\n{body}queue {count}\n"
    (pool.root / "grid.sub").write_text(text)
    out = pool.cli("condorx.cli.submit", "grid.sub").stdout
    return int(out.strip().split()[-1].rstrip("."))


def jobs(pool: LocalPool, *attrs: str) -> dict[str, list[str]]:
    out = pool.cli("condorx.cli.q", "-allusers", "-af", "ClusterId", "ProcId", *attrs).stdout
    rows = [ln.split(None, 2 + len(attrs) - 1) for ln in out.splitlines()]
    return {f"{r[0]}.{r[1]}": r[2:] for r in rows}


def history(pool: LocalPool, *attrs: str) -> dict[str, list[str]]:
    out = pool.cli("condorx.cli.history", "-af", "ClusterId", "ProcId", *attrs).stdout
    return {f"{r[0]}.{r[1]}": r[2:] for r in (ln.split() for ln in out.splitlines())}


SCRIPT = """#!/bin/sh
read greeting < greeting.txt
echo "$greeting from $(basename "$PWD")"
id -un
echo "made in pool b" > result.txt
echo oops >&2
sleep ${1:-0}
exit 3
"""


def write_job(pool: LocalPool, sleep: int = 0) -> str:
    (pool.root / "work.sh").write_text(SCRIPT)
    (pool.root / "work.sh").chmod(0o755)
    (pool.root / "greeting.txt").write_text("hello\n")
    return (
        f"executable = work.sh\narguments = {sleep}\ntransfer_input_files = greeting.txt\n"
        'output = job.out\nerror = job.err\nlog = job.log\n+remote_Flavour = "spooled"\n'
    )


def test_a_grid_job_runs_in_the_other_pool_and_its_output_comes_home(pools):
    a, b = pools
    resource = start(a, b)
    c = submit(a, resource, write_job(a, sleep=3))
    job = f"{c}.0"
    # In B: a vanilla job owned by the identity A's token names, with its files spooled.
    wait_for(lambda: jobs(b), "the job in pool B")
    remote_id, row = next(iter(jobs(b, "Owner", "JobUniverse", "Flavour", "Iwd").items()))
    assert row[:3] == ["poola", "5", "spooled"]
    assert Path(row[3]).is_relative_to(b.root / "spool")
    assert (Path(row[3]) / "greeting.txt").read_text() == "hello\n"
    assert jobs(a, "GridJobId")[job] == [f"{resource} {remote_id}"]
    # A shows it running while B runs it.
    wait_for(lambda: jobs(a, "JobStatus").get(job) == ["2"], "the job to show running in A")
    wait_for(lambda: job not in jobs(a), "the job to complete in A", timeout=60)
    assert history(a, "JobStatus", "ExitCode")[job] == ["4", "3"]
    out = (a.root / "job.out").read_text().splitlines()
    assert out[0].startswith("hello from ")
    if os.geteuid() == 0:  # B has no account for A's identity: the job ran as nobody
        assert out[1] == "nobody"
    assert (a.root / "job.err").read_text() == "oops\n"
    assert (a.root / "result.txt").read_text() == "made in pool b\n"
    events = (a.root / "job.log").read_text()
    assert "Job submitted" in events or "000 (" in events
    assert "005 (" in events  # terminated
    assert f"Job submitted to grid resource\n    GridResource: {resource}\n" in events
    assert f"    GridJobId: {resource} {remote_id}\n" in events
    # Once A has the output, B lets its job go, and its spool with it.
    wait_for(lambda: not jobs(b), "B to let its job go")
    assert not Path(row[3]).exists()
    assert history(b, "JobStatus", "ExitCode")[remote_id] == ["4", "3"]


def test_removing_or_holding_a_grid_job_removes_its_remote_job(pools):
    a, b = pools
    resource = start(a, b, startd=False)  # B's jobs stay idle
    c = submit(a, resource, write_job(a), count=2)
    wait_for(lambda: len(jobs(b)) == 2, "both jobs in pool B")
    ids = jobs(a, "GridJobId")
    gone = ids[f"{c}.0"][0].split()[-1]
    a.cli("condorx.cli.act:rm", f"{c}.0")
    wait_for(lambda: gone not in jobs(b), "the removed job's remote job to go")
    wait_for(lambda: f"{c}.0" not in jobs(a), "the removed job to leave A's queue")
    assert history(b, "JobStatus")[gone] == ["3"]
    held = ids[f"{c}.1"][0].split()[-1]
    a.cli("condorx.cli.act:hold", f"{c}.1")
    wait_for(lambda: held not in jobs(b), "the held job's remote job to go")
    wait_for(lambda: jobs(a, "GridJobId")[f"{c}.1"] == ["undefined"], "A to forget it")
    # Released, it is submitted again, as a new remote job.
    a.cli("condorx.cli.act:release", f"{c}.1")
    wait_for(lambda: len(jobs(b)) == 1, "a new remote job")
    assert next(iter(jobs(b))) != held


def test_a_remote_job_left_with_no_local_job_naming_its_pool_is_removed(pools):
    a, b = pools
    resource = start(a, b, startd=False)
    c = submit(a, resource, write_job(a))
    job = f"{c}.0"
    wait_for(lambda: jobs(b), "the job in pool B")
    remote_id = next(iter(jobs(b)))
    wait_for(lambda: jobs(a, "GridJobId")[job] != ["undefined"], "A to record its remote job")
    # B's schedd going away and coming back is in the job's log (events 026 and 025,
    # HTCondor's ULOG_GRID_RESOURCE_DOWN and _UP).
    log = a.root / "job.log"
    b.daemon("schedd").stop()
    wait_for(lambda: "026 (" in log.read_text(), "the resource-down event")
    assert f"Detected Down Grid Resource\n    GridResource: {resource}\n" in log.read_text()
    b.daemon("schedd").start()
    wait_for(lambda: "025 (" in log.read_text(), "the resource-up event")
    assert f"Grid Resource Back Up\n    GridResource: {resource}\n" in log.read_text()
    assert log.read_text().count("026 (") == 1  # once per change, not once per pass
    # B's schedd is away, so A cannot remove the remote job; a second condor_rm forces
    # the local job out, and no job in A's queue names pool B any more.
    b.daemon("schedd").stop()
    a.cli("condorx.cli.act:rm", job)
    a.cli("condorx.cli.act:rm", job)
    assert job not in jobs(a)
    known = a.root / "spool" / "grid_resources"
    assert known.read_text() == f"{resource}\n"  # A remembers it submitted there
    b.daemon("schedd").start()
    wait_for(lambda: remote_id not in jobs(b), "the left-behind remote job to be removed")
    assert history(b, "JobStatus")[remote_id] == ["3"]
    wait_for(lambda: known.read_text() == "", "A to stop visiting B, nothing of its left")


def test_a_hold_in_the_remote_pool_holds_the_job_here(pools):
    a, b = pools
    resource = start(a, b, startd=False)
    c = submit(a, resource, write_job(a))
    wait_for(lambda: jobs(b), "the job in pool B")
    remote_id = next(iter(jobs(b)))
    b.cli("condorx.cli.act:hold", remote_id, "-reason", "disk full at B")
    wait_for(lambda: jobs(a, "JobStatus")[f"{c}.0"] == ["5"], "the job held in A")
    reason = a.cli("condorx.cli.q", "-af", "HoldReason").stdout
    assert B_NAME in reason and "disk full at B" in reason
    wait_for(lambda: not jobs(b), "the held job's remote job to be removed")


def test_output_that_cannot_be_written_home_holds_the_job_until_released(pools):
    a, b = pools
    resource = start(a, b)
    blocker = a.root / "results"
    blocker.write_text("a file where the output's directory should be\n")
    body = write_job(a).replace("output = job.out", "output = results/job.out")
    c = submit(a, resource, body)
    job = f"{c}.0"
    # The job completes in B, but A cannot store its output: held, never completed.
    wait_for(lambda: jobs(a, "JobStatus").get(job) == ["5"], "the job held in A", timeout=60)
    code, reason = jobs(a, "HoldReasonCode", "HoldReason")[job]
    assert code == "12" and f"Cannot make directory {blocker} for output file" in reason
    assert job not in history(a, "JobStatus")
    wait_for(lambda: not jobs(b), "B to let the finished remote job go")
    # Once the way is clear, released, it runs again and completes with its output.
    blocker.unlink()
    a.cli("condorx.cli.act:release", job)
    wait_for(lambda: job in history(a, "JobStatus"), "the job to complete", timeout=60)
    assert (a.root / "results" / "job.out").read_text().startswith("hello from ")


def test_without_a_token_the_remote_pool_accepts_nothing(pools):
    a, b = pools
    resource = start(a, b, token=False)
    c = submit(a, resource, "executable = /bin/true\n")
    log = a.root / "log" / "SchedLog"
    wait_for(lambda: log.exists() and "accepts none of our tokens" in log.read_text(), "a log line")
    assert jobs(a, "JobStatus")[f"{c}.0"] == ["1"] and not jobs(b)
    # A token of another pool (A's own) is refused by B the same way.
    tokens = a.root / "grid_tokens.d"
    tokens.mkdir(mode=0o700)
    refusals = log.read_text().count("accepts none of our tokens")
    (tokens / "wrong").write_text(a.cli("condorx.cli.token:create", "-identity", "x").stdout)
    wait_for(  # two passes that tried the new token too
        lambda: log.read_text().count("accepts none of our tokens") >= refusals + 2,
        "two more refusals",
    )
    assert not jobs(b)


def test_a_schedd_killed_at_any_moment_submits_each_job_once(pools):
    a, b = pools
    resource = start(a, b, startd=False)
    c = submit(a, resource, "executable = /bin/true\n", count=40)
    for pause in (0.3, 0.8, 0.5):
        time.sleep(pause)
        a.daemon("schedd").kill9()
        a.start("schedd")
    b.daemon("schedd").kill9()
    b.start("schedd")
    wait_for(
        lambda: all(v != ["undefined"] for v in jobs(a, "GridJobId").values()),
        "every job submitted",
    )
    remote = jobs(b, "SubmitterGlobalJobId")
    assert len(remote) == 40  # none twice, none lost
    local = jobs(a, "GlobalJobId", "GridJobId")
    assert sorted(v[0] for v in remote.values()) == sorted(v[0] for v in local.values())
    for key, (_, grid_id) in local.items():
        assert key.startswith(f"{c}.") and grid_id.split()[-1] in remote


def test_the_router_sends_jobs_to_the_other_pool_and_the_originals_complete(pools):
    a, b = pools
    resource = f"condor {B_NAME} $(POOL_B_COLLECTOR)"
    with open(a.config_file, "a") as f:
        f.write(
            "JOB_ROUTER_POLLING_PERIOD = 1\n"
            f'JOB_ROUTER_ENTRIES = [ name = "PoolB"; GridResource = "{resource}"; \\\n'
            "    requirements = target.WantJobRouter is true; set_Routed = true; ]\n"
        )
    b.start("collector")
    with open(a.config_file, "a") as f:
        f.write(f"POOL_B_COLLECTOR = {b.daemon('collector').address()}\n")
    a.reload()
    start(a, b)
    a.start("job_router")
    (a.root / "job.sub").write_text(write_job(a) + "+WantJobRouter = true\nqueue 2\n")
    out = a.cli("condorx.cli.submit", "job.sub").stdout
    c = int(out.strip().split()[-1].rstrip("."))

    def in_b() -> dict[str, list[str]]:
        # A copy may finish in B, and leave its queue, before the other one arrives.
        return {**history(b, "Routed"), **jobs(b, "Routed")}

    wait_for(lambda: len(in_b()) == 2, "both copies in pool B")
    assert all(v == ["true"] for v in in_b().values())
    wait_for(lambda: not jobs(a), "the originals and copies to complete", timeout=60)
    h = history(a, "JobStatus", "ExitCode", "JobUniverse")
    assert h[f"{c}.0"] == ["4", "3", "5"] and h[f"{c}.1"] == ["4", "3", "5"]
    copies = [k for k, v in h.items() if v[2] == "9"]
    assert len(copies) == 2 and all(h[k][:2] == ["4", "3"] for k in copies)
    assert (a.root / "job.out").read_text().startswith("hello from ")
    report = a.cli("condorx.cli.router:history").stdout.splitlines()
    assert "PoolB               0       2     0" in report


def test_a_job_forged_in_the_remote_pool_is_not_taken_for_ours(pools):
    # A user of B writes our schedd's name and a job's GlobalJobId into a job of hers:
    # were it adopted, her output would land in our user's files.
    a, b = pools
    resource = start(a, b, token=False, startd=False)
    c = submit(a, resource, "executable = /bin/true\n")
    gid = jobs(a, "GlobalJobId")[f"{c}.0"][0]
    mallory = b.cli("condorx.cli.token:create", "-identity", "mallory").stdout.strip()
    (b.root / "forged.sub").write_text(
        'executable = /bin/true\n+SubmitterSchedd = "poola-schedd@loopback"\n'
        f'+SubmitterGlobalJobId = "{gid}"\nqueue\n'
    )
    b.cli("condorx.cli.submit", "forged.sub", env={**b.env, "CONDORX_TOKEN": mallory})
    forged = next(iter(jobs(b)))
    tokens = a.root / "grid_tokens.d"
    tokens.mkdir(mode=0o700)
    made = b.cli("condorx.cli.token:create", "-identity", "poola").stdout
    (tokens / "poolb").write_text(made)
    wait_for(lambda: jobs(a, "GridJobId")[f"{c}.0"] != ["undefined"], "our own submission")
    owners = jobs(b, "Owner")
    ours = jobs(a, "GridJobId")[f"{c}.0"][0].split()[-1]
    assert ours != forged and owners[ours] == ["poola"] and owners[forged] == ["mallory"]
    # Removing our job removes ours there, in a pass that would take every remote job it
    # took for ours: hers is left alone.
    a.cli("condorx.cli.act:rm", f"{c}.0")
    wait_for(lambda: ours not in jobs(b), "our remote job to be removed")
    assert forged in jobs(b)
