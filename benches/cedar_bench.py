"""HTCondor's own Python bindings (htcondor 25.14.1) against condorx's daemons, each figure
beside condorx's own wire on the same pool in the same run.

    python benches/cedar_bench.py [--jobs 100000] [--slots 10000] [--submit 10000]

- `Schedd.query()` of every job (whole ads) through htcondor2, beside condorx's own
  `condor_q -long` on the same queue (target: at most 1.5x);
- `Schedd.submit` of --submit procs through htcondor2 (target: 10,000 procs/s), beside
  condorx's `condor_submit` of the same description; and of 100,000 procs given as
  `itemdata`, every job sent, and as a job factory (max_materialize: target under 2 s),
  beside condorx's `condor_submit` of the same factory;
- `Collector.query` of --slots slot ads (target: under 0.3 s), beside condorx's
  `condor_status -long`;
- a command on a new security session (target: at most 5 ms) and on a resumed one
  (target: at most 1 ms), a small collector query each.

The bindings' figures are taken inside their process (the call alone); condorx's tools
are timed as whole runs, start-up included, as a user sees them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from condorx.testing import bindings
from condorx.testing.pool import LocalPool

ROOT = Path(__file__).resolve().parent.parent
WORKLOAD = ROOT.parent / "shared" / "bench" / "workload.py"

JOBS = """\
executable = /bin/sleep
arguments = $(Process)
request_memory = 512 MB
+Experiment = "bench"
queue {jobs}
"""

# The same factory as the bindings' itemdata one, by condorx's own condor_submit.
FACTORY = """\
executable = /bin/echo
arguments = $(item)
max_materialize = 1000
queue item from items.txt
"""

MEASURE = """
import time, htcondor2 as htcondor
schedd = htcondor.Schedd()
coll = htcondor.Collector()
out = {}
t0 = time.perf_counter(); jobs = schedd.query(); out["query"] = time.perf_counter() - t0
out["jobs"] = len(jobs)
t0 = time.perf_counter(); slots = coll.query(htcondor.AdTypes.Startd)
out["collector"] = time.perf_counter() - t0
out["slots"] = len(slots)
sub = htcondor.Submit({"executable": "/bin/sleep", "arguments": "$(ProcId)",
                       "request_memory": "512 MB", "My.Experiment": '"bench"'})
t0 = time.perf_counter(); r = schedd.submit(sub, count=SUBMIT)
out["submit"] = time.perf_counter() - t0
out["submitted"] = r.num_procs()
t0 = time.perf_counter()
r = schedd.submit(htcondor.Submit({"executable": "/bin/echo", "arguments": "$(item)"}),
                  itemdata=iter(str(i) for i in range(ITEMS)))
out["itemdata"] = time.perf_counter() - t0
out["items"] = r.num_procs()
t0 = time.perf_counter()
r = schedd.submit(htcondor.Submit({"executable": "/bin/echo", "arguments": "$(item)",
                                   "max_materialize": "1000"}),
                  itemdata=iter(str(i) for i in range(ITEMS)))
out["factory"] = time.perf_counter() - t0
out["factory_items"] = r.num_procs()
result(out)
"""


# The bindings keep sessions for the life of the process: a new one is the first command
# a process sends (connection and handshake); the next one resumes it.
SESSION = """
import time, htcondor2 as htcondor
coll = htcondor.Collector()
t0 = time.perf_counter(); coll.query(htcondor.AdTypes.Schedd, projection=["Name"])
first = time.perf_counter() - t0
t0 = time.perf_counter(); coll.query(htcondor.AdTypes.Schedd, projection=["Name"])
result([first, time.perf_counter() - t0])
"""


def sessions(pool: LocalPool, runs: int = 15) -> tuple[float, float]:
    """The median new-session and resumed-session command times."""
    firsts, seconds = [], []
    for _ in range(runs):
        r = bindings.run(pool, SESSION)
        if r.returncode != 0:
            raise SystemExit(f"the bindings failed:\n{r.stderr[-3000:]}")
        firsts.append(r.value[0])
        seconds.append(r.value[1])
    return sorted(firsts)[runs // 2], sorted(seconds)[runs // 2]


def timed(pool: LocalPool, module: str, *args: str) -> float:
    """A condorx tool's whole run in a process of its own, start-up included."""
    t0 = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", module, *args], env=pool.env, cwd=pool.root, capture_output=True
    )
    elapsed = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{module} {' '.join(args)} failed:\n{r.stderr.decode()[-2000:]}")
    return elapsed


def load_slots(pool: LocalPool, slots: int, root: Path) -> None:
    """Advertise `slots` slot ads (the shared workload's) as the pool's daemons do."""
    ads = root / "slots.ads"
    subprocess.run([sys.executable, str(WORKLOAD), "slots", str(slots), str(ads)], check=True)
    code = textwrap.dedent(
        f"""
        import trio
        from condorx.transport import wire
        from condorx.classad import parseAds
        from condorx.client.collector import CollectorClient
        from condorx.transport.connection import daemon_credentials
        from condorx.language.config import load_config
        cfg = load_config(path={str(pool.config_file)!r})
        ads = [wire.ad_to_wire(ad) for ad in parseAds(open({str(ads)!r}).read())]
        for ad in ads:
            ad["MyType"] = "Machine"
        async def go():
            await CollectorClient(cfg, daemon_credentials(cfg)).advertise(ads)
        trio.run(go)
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=pool.env)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--jobs", type=int, default=100_000)
    p.add_argument("--slots", type=int, default=10_000)
    p.add_argument("--submit", type=int, default=10_000)
    p.add_argument("--items", type=int, default=100_000)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="cx-cedar-bench-") as d:
        root = Path(d)
        limit = max(args.jobs, args.submit, args.items)
        pool = LocalPool(
            root,
            f"MAX_JOBS_PER_SUBMISSION = {limit}\nMAX_JOBS_PER_OWNER = 10000000\n"
            "CLASSAD_LIFETIME = 3600\n",
        )
        pool.start("collector", "schedd")
        try:
            pool.submit(JOBS.format(jobs=args.jobs))
            load_slots(pool, args.slots, root)
            condor_q = timed(pool, "condorx.cli.q", "-long")
            condor_status = timed(pool, "condorx.cli.status", "-long")
            (root / "small.sub").write_text(JOBS.format(jobs=args.submit))
            condor_submit = timed(pool, "condorx.cli.submit", "small.sub")
            (root / "items.txt").write_text("".join(f"{i}\n" for i in range(args.items)))
            (root / "factory.sub").write_text(FACTORY)
            condor_factory = timed(pool, "condorx.cli.submit", "factory.sub")
            code = MEASURE.replace("SUBMIT", str(args.submit)).replace("ITEMS", str(args.items))
            r = bindings.run(pool, code, timeout=1800)
            if r.returncode != 0:
                raise SystemExit(f"the bindings failed:\n{r.stderr[-3000:]}")
            v = r.value
            v["new_session"], v["resumed"] = sessions(pool)
        finally:
            pool.stop()
    rows = [
        (
            f"Schedd.query, {v['jobs']:,} jobs",
            v["query"],
            f"condor_q -long {condor_q:.2f} s",
            f"{v['query'] / condor_q:.2f}x (target <= 1.5x)",
        ),
        (
            f"Schedd.submit, {v['submitted']:,} procs",
            v["submit"],
            f"condor_submit {condor_submit:.2f} s",
            f"{v['submitted'] / v['submit']:,.0f} procs/s (target >= 10,000)",
        ),
        (f"Schedd.submit itemdata, {v['items']:,} procs", v["itemdata"], "", "every job sent"),
        (
            f"  ... max_materialize 1000, {v['factory_items']:,}",
            v["factory"],
            f"condor_submit {condor_factory:.2f} s",
            "target < 2 s",
        ),
        (
            f"Collector.query, {v['slots']:,} slots",
            v["collector"],
            f"condor_status -long {condor_status:.2f} s",
            "target < 0.3 s",
        ),
        ("command on a new session", v["new_session"], "", "target <= 5 ms"),
        ("command on a resumed session", v["resumed"], "", "target <= 1 ms"),
    ]
    print(f"{'':<40} {'htcondor2':>10}  {'condorx':<26} result")
    for label, seconds, peer, verdict in rows:
        print(f"{label:<40} {seconds * 1000:>8.1f}ms  {peer:<26} {verdict}")
    print(json.dumps(v))


if __name__ == "__main__":
    main()
