"""The job router on real daemons (Job Router manual): routed copies in the schedd's queue, the
original tied to its copy and mirroring it, and the rules for completion, removal and
hold; MaxJobs and MaxIdleJobs; the seed's example table, whose gt2 sites cannot be
reached from here; and a router killed with -9 at any moment."""

from __future__ import annotations

import getpass
import json
import random
import time
from pathlib import Path

from condorx.testing.pool import QUICK_POOL, wait_for
from condorx.testing.pool import LocalPool as Pool
from condorx.testing.seeds import router_example

BASE = QUICK_POOL + "JOB_ROUTER_POLLING_PERIOD = 1\nPERIODIC_EXPR_INTERVAL = 1\n"
# A route whose copies stay vanilla jobs of this pool (TargetUniverse 5): they run on
# the local startd, so the mirroring can be watched on real runs.
LOCAL = """
JOB_ROUTER_ENTRIES = [ name = "Local"; TargetUniverse = 5; \\
    requirements = target.WantJobRouter is true; MaxJobs = {max_jobs}; \\
    MaxIdleJobs = {max_idle}; set_Routed = true; delete_WantJobRouter = true; ]
"""


def start(pool: Pool, extra: str, *daemons: str) -> Pool:
    with open(pool.config_file, "a") as f:
        f.write(BASE + extra)
    pool.reload()
    pool.start(*daemons)
    return pool


def submit(pool: Pool, body: str, count: int = 1) -> int:
    (pool.root / "job.sub").write_text(body + f"+WantJobRouter = True\nqueue {count}\n")
    out = pool.cli("condorx.cli.submit", "job.sub").stdout
    return int(out.strip().split()[-1].rstrip("."))


def jobs(pool: Pool, *attrs: str) -> dict[str, list[str]]:
    """Every job in the queue: id -> the attributes (`-` when undefined)."""
    out = pool.cli("condorx.cli.q", "-af", "ClusterId", "ProcId", *attrs).stdout
    rows = [ln.split() for ln in out.splitlines()]
    return {f"{r[0]}.{r[1]}": ["-" if v == "undefined" else v for v in r[2:]] for r in rows}


def history(pool: Pool, *attrs: str) -> dict[str, list[str]]:
    out = pool.cli("condorx.cli.history", "-af", "ClusterId", "ProcId", *attrs).stdout
    return {f"{r[0]}.{r[1]}": r[2:] for r in (ln.split() for ln in out.splitlines())}


def test_a_routed_copy_runs_and_its_original_completes_with_it(pool):
    # The local startd takes only routed copies (set_Routed), never an original.
    extra = LOCAL.format(max_jobs=10, max_idle=10) + "START = TARGET.Routed =?= true\n"
    start(pool, extra, "collector", "negotiator", "startd")
    pool.start("schedd", "job_router")
    c = submit(pool, "executable = /bin/sh\narguments = \"-c 'sleep 2; exit 7'\"\n")
    original = f"{c}.0"
    wait_for(lambda: len(jobs(pool)) == 2, "the routed copy")
    q = jobs(pool, "Managed", "RoutedToJobId", "RoutedFromJobId", "RouteName", "Routed")
    copy = q[original][1]
    assert q[original][0] == "External" and q[copy][2] == original
    assert q[copy][3] == "Local" and q[copy][4] == "true"
    # While the copy runs, the original shows it running.
    wait_for(lambda: jobs(pool, "JobStatus")[copy] == ["2"], "the copy to run")
    assert jobs(pool, "JobStatus")[original] == ["2"]
    wait_for(lambda: not jobs(pool), "both to leave the queue")
    h = history(pool, "JobStatus", "ExitCode", "RoutedToJobId")
    assert h[original][:2] == ["4", "7"] and h[copy][:2] == ["4", "7"]
    # Only the copy ran here: the original was never matched as a vanilla job.
    assert history(pool, "NumJobStarts")[original] in (["undefined"], ["1"])
    out = pool.cli("condorx.cli.router:history").stdout.splitlines()
    assert out[0].startswith("Routed job history from ")
    assert out[2:4] == ["Site            Hours    Jobs    Runs", " " * 22 + "Completed Aborted"]
    assert out[5] == "Local               0       1     0"
    assert out[-1] == "TOTAL               0       1     0"


def test_removing_the_copy_frees_the_original_and_removing_the_original_the_copy(pool):
    # No startd: the copies stay idle.
    start(pool, LOCAL.format(max_jobs=10, max_idle=10), "collector", "schedd", "job_router")
    c = submit(pool, "executable = /bin/true\n", count=2)
    wait_for(lambda: len(jobs(pool)) == 4, "two routed copies")
    q = jobs(pool, "RoutedToJobId")
    first, second = f"{c}.0", f"{c}.1"
    pool.cli("condorx.cli.act:rm", q[first][0])
    # The original is untied and idle; the router routes it again, as a new copy.
    wait_for(lambda: jobs(pool, "RoutedToJobId")[first][0] not in ("-", q[first][0]), "a new copy")
    assert jobs(pool, "JobStatus")[first] == ["1"]
    copy2 = jobs(pool, "RoutedToJobId")[second][0]
    pool.cli("condorx.cli.act:hold", second)
    wait_for(lambda: copy2 not in jobs(pool), "the held original's copy to be removed")
    assert jobs(pool, "JobStatus", "Managed")[second] == ["5", "ScheddDone"]
    copy1 = jobs(pool, "RoutedToJobId")[first][0]
    pool.cli("condorx.cli.act:rm", first)
    wait_for(lambda: copy1 not in jobs(pool) and first not in jobs(pool), "both to go")
    assert history(pool, "JobStatus")[copy1] == ["3"]


def passes(pool: Pool, n: int) -> None:
    """`n` routing passes, each begun after the last and over when this returns."""
    for _ in range(n):
        assert pool.call_daemon("job_router", {"cmd": "poll"})["ok"]


def test_max_idle_jobs_and_max_jobs_are_respected(pool):
    start(pool, LOCAL.format(max_jobs=5, max_idle=3), "collector", "schedd", "job_router")
    submit(pool, "executable = /bin/true\n", count=8)
    wait_for(lambda: len(jobs(pool)) == 11, "three copies")
    passes(pool, 2)  # two more: no more idle copies than MaxIdleJobs
    assert sum(1 for v in jobs(pool, "RoutedFromJobId").values() if v[0] != "-") == 3
    summary = pool.cli("condorx.cli.router:q", "-S").stdout.splitlines()
    assert summary == ["   JOBS ST Route      GridResource", "      3  I Local      "]
    # Let the copies "run" (held counts toward MaxJobs, not toward MaxIdleJobs).
    copies = [k for k, v in jobs(pool, "RoutedFromJobId").items() if v[0] != "-"]
    for k in copies:
        pool.cli("condorx.cli.act:hold", k)
    wait_for(lambda: len(jobs(pool)) == 13, "two more copies, up to MaxJobs")
    passes(pool, 2)
    assert sum(1 for v in jobs(pool, "RoutedFromJobId").values() if v[0] != "-") == 5
    rows = pool.cli("condorx.cli.router:q").stdout.splitlines()[1:]
    assert sorted(r.split()[-1] for r in rows) == ["H", "H", "H", "I", "I"]


def test_the_seeds_example_holds_what_it_cannot_reach_and_throttles_the_route(pool):
    start(pool, router_example().replace("JOB_ROUTER_POLLING_PERIOD = 10", ""), "collector")
    pool.start("schedd", "job_router")
    submit(pool, "executable = /bin/true\n", count=3)
    wait_for(
        lambda: (
            "cannot be reached from this pool" in pool.cli("condorx.cli.q", "-hold").stdout
            or bool(history(pool, "RemoveReason"))
        ),
        "a copy held for its unreachable site",
    )
    # PeriodicRemove (JobStatus == 5, from the defaults) removes held copies: failures;
    # past 0.03 jobs/s (2 in a minute) the gt2 routes take no more jobs.
    wait_for(lambda: _throttled(pool) >= 2, "the gt2 routes to be throttled", timeout=60)
    routed_before = len(history(pool))
    passes(pool, 2)
    assert len(history(pool)) - routed_before <= 2  # at most a copy or two in flight
    log = (pool.root / "log" / "JobRouterLog").read_text()
    assert "route 'Site 1'" in log and "route 'Site 3'" in log
    # The aborted copies are the route's history.
    report = json.loads(pool.cli("condorx.cli.router:history", "-json").stdout)
    aborted = {r["route"]: r["aborted"] for r in report["routes"]}
    assert aborted.get("Site 1", 0) >= 1 and aborted.get("Site 2", 0) >= 1


def _throttled(pool: Pool) -> int:
    routes = pool.call_daemon("job_router", {"cmd": "routes"})["routes"]
    return sum(1 for r in routes if r["throttled"])


def test_a_router_killed_at_any_moment_loses_and_duplicates_nothing(pool):
    start(pool, LOCAL.format(max_jobs=400, max_idle=400), "collector", "schedd")
    c = submit(pool, "executable = /bin/true\n", count=150)
    rng = random.Random(7)
    for _ in range(4):
        pool.start("job_router")
        time.sleep(rng.uniform(0.2, 1.5))
        pool.daemon("job_router").kill9()
    pool.start("job_router")
    wait_for(lambda: len(jobs(pool)) == 300, "every job routed once", timeout=60)
    q = jobs(pool, "RoutedToJobId", "RoutedFromJobId")
    originals = {k: v[0] for k, v in q.items() if k.startswith(f"{c}.")}
    copies = {k: v[1] for k, v in q.items() if not k.startswith(f"{c}.")}
    assert len(originals) == 150 and len(copies) == 150
    assert sorted(copies.values()) == sorted(originals)  # each original: one copy
    assert all(copies[copy] == orig for orig, copy in originals.items())


def test_users_cannot_forge_the_routers_ties(pool):
    # Were they writable, a user's job "tied" to another's could remove it (the copy of
    # a removed original is removed) or dodge the periodic expressions.
    start(pool, "", "collector", "schedd")
    victim = submit(pool, "executable = /bin/true\n")
    (pool.root / "forged.sub").write_text(
        f'executable = /bin/true\n+Managed = "External"\n+RoutedToJobId = "{victim}.0"\nqueue\n'
    )
    out = pool.cli("condorx.cli.submit", "forged.sub").stdout
    forged = int(out.strip().split()[-1].rstrip("."))
    # The schedd's own attributes are the schedd's: what the submitter wrote is dropped.
    assert jobs(pool, "Managed", "RoutedToJobId")[f"{forged}.0"] == ["-", "-"]
    r = pool.cli(
        "condorx.cli.edit:qedit", f"{forged}.0", "RoutedToJobId", f'"{victim}.0"', check=False
    )
    assert r.returncode != 0 and "set by the schedd" in r.stderr + r.stdout
    pool.cli("condorx.cli.act:rm", f"{forged}.0")
    assert jobs(pool, "JobStatus") == {f"{victim}.0": ["1"]}


SANDBOXED = """
JOB_ROUTER_ENTRIES = [ name = "Sandboxed"; TargetUniverse = 5; \\
    requirements = target.WantJobRouter is true && target.Sandbox is true; \\
    JobShouldBeSandboxed = true; UseSharedX509UserProxy = target.Owner == "{owner}"; \\
    SharedX509UserProxy = "{proxy}"; set_Routed = true; ] \\
  [ name = "Unsandboxed"; TargetUniverse = 5; \\
    requirements = target.WantJobRouter is true && target.Sandbox is false; \\
    UseSharedX509UserProxy = true; SharedX509UserProxy = "{proxy}"; ]
"""
PROXY_JOB = """#!/bin/sh
cat "$X509_USER_PROXY"
pwd
echo made > result.txt
sleep 3
"""


def test_a_sandboxed_copy_runs_from_the_spool_with_the_shared_proxy(pool):
    proxy = pool.root / "shared_proxy"
    proxy.write_text("-----BEGIN PROXY-----\n")
    (pool.root / "work").mkdir()
    (pool.root / "work" / "job.sh").write_text(PROXY_JOB)
    owner = getpass.getuser()
    extra = SANDBOXED.format(owner=owner, proxy=proxy) + "START = TARGET.Routed =?= true\n"
    start(pool, extra, "collector", "negotiator", "startd")
    pool.start("schedd", "job_router")
    # A relative executable is found from the submit directory, not initialdir (HTCondor).
    body = "initialdir = work\nexecutable = work/job.sh\noutput = job.out\n"
    c = submit(pool, body + "+Sandbox = true\n")
    wait_for(lambda: len(jobs(pool)) == 2, "the routed copy")
    copy = jobs(pool, "RoutedToJobId")[f"{c}.0"][0]
    iwd, spooled, x509 = jobs(pool, "Iwd", "SpooledInputFiles", "X509UserProxy")[copy]
    assert Path(iwd).is_relative_to(pool.root / "spool")
    assert spooled == "job.sh,shared_proxy" and x509 == "shared_proxy"
    wait_for(lambda: not jobs(pool), "both to complete")
    out = (pool.root / "work" / "job.out").read_text().splitlines()
    assert out[0] == "-----BEGIN PROXY-----"  # the proxy reached the job
    assert (pool.root / "work" / "result.txt").read_text() == "made\n"  # staged home
    assert not Path(iwd).exists()  # and the sandbox is gone
    # A shared proxy without sandboxing is refused, as the seed says, and logged.
    c2 = submit(pool, "executable = /bin/true\n+Sandbox = false\n")
    log = pool.root / "log" / "JobRouterLog"
    wait_for(lambda: "a shared X509 proxy needs JobShouldBeSandboxed" in log.read_text(), "it")
    assert jobs(pool, "Managed")[f"{c2}.0"] == ["-"]
