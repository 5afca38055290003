"""The real daemons at scale, on simulated execute machines (condorx.sim).

    python benches/scale_bench.py [--slots 10000] [--per-machine 100] [--timeout 900]
                                  [--jobs N] [--autoclusters K]

Starts a real collector, negotiator and schedd and the simulator with --slots static
slots (--per-machine to a simulated machine), submits --jobs jobs (twice as many as
slots unless given; one cluster, in --autoclusters groups that differ in their memory
request; each job lasting an hour, so that a slot once busy stays busy), and measures:

- how long the simulator's ads take to reach the collector; how many slot ads a second
  the collector takes (the pool's own ads sent again, 1,000 to an update); how long
  `condor_status -total` takes;
- from the submission's acknowledgement until 95% of the slots are busy;
- the negotiator daemon's cycles (gather, match, hand-out), from its log, and the time
  each match costs it;
- each daemon's resident memory at the end, and the schedd's per running job;
- with --turnover S: in another pool, jobs of S seconds (--waves times as many as slots,
  five unless given), run to the end: how many finish a second from 20% to 80% done, how
  busy the slots are meanwhile (as the collector shows them), and each daemon's CPU;
- with --schedds N, both pools have N schedds (as `condorx sim up --schedds N` makes
  them), the jobs shared evenly among them and submitted to all at once; the schedds'
  memory is their sum;

side by side with `negotiate()` run in this process over the very ads the daemons held
(the slots before the submission, the jobs after it), which is what the daemon's cycle
is to be held against (issue 20: the daemon's cycle <= 2x the in-process one; 95% busy
in < 60 s at 100,000 slots).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import aclosing
from pathlib import Path

import trio

from condorx.cli.sim import more_schedds
from condorx.client.collector import CollectorClient
from condorx.client.schedd import ScheddClient
from condorx.host.procfs import stat_fields
from condorx.language.negotiation import Submitter, negotiate
from condorx.testing.pool import LocalPool
from condorx.transport import wire
from condorx.transport.connection import daemon_credentials

# Configuration lines given with --set, after the bench's own (a knob's effect measured).
EXTRA: list[str] = []
# --schedds: how many schedds each pool has.
SCHEDDS = [1]


def config(slots: int, per_machine: int, jobs: int = 0) -> str:
    machines = max(1, slots // per_machine)
    return (
        f"SIM_MACHINES = {machines}\nNUM_CPUS = {per_machine}\nMEMORY = {per_machine * 1024}\n"
        "SIM_JOB_DURATION = 3600\nSTART = TRUE\n"
        "NEGOTIATOR_INTERVAL = 5\nUPDATE_INTERVAL = 30\nSCHEDD_INTERVAL = 5\n"
        f"MAX_JOBS_PER_SUBMISSION = {max(5 * slots, jobs, 20000)}\n"
        # HTCondor's defaults (10,000 running, 100,000 per owner) are below the scale.
        "MAX_JOBS_RUNNING = 10000000\nMAX_JOBS_PER_OWNER = 10000000\n" + more_schedds(SCHEDDS[0])
    ) + "".join(f"{line}\n" for line in EXTRA)


def schedds() -> list[tuple[str, str | None]]:
    """The pool's schedds, as `more_schedds` configures them: how LocalPool names each
    (schedd, schedd:SCHEDD2, ...), and the name a client asks for (schedd2, ...; None
    for the first, found by its address file)."""
    more = ((f"schedd:SCHEDD{n}", f"schedd{n}") for n in range(2, SCHEDDS[0] + 1))
    return [("schedd", None), *more]


def daemons() -> list[str]:
    """The schedds' LocalPool names."""
    return [daemon for daemon, _ in schedds()]


def with_schedds() -> str:
    """What a result's heading adds when the pool has more than one schedd."""
    return f", {SCHEDDS[0]} schedds" if SCHEDDS[0] > 1 else ""


def submit_all(pool: LocalPool, text_of: Callable[[int], str], jobs: int) -> None:
    """`jobs` shared evenly among the schedds, submitted to all of them at once (the
    text of a submit file of n jobs is `text_of(n)`); returns when each acknowledged."""
    names = [name for _, name in schedds()]

    def submit(k: int) -> None:
        share = jobs // len(names) + (1 if k < jobs % len(names) else 0)
        path = f"job{k}.sub"
        (pool.root / path).write_text(text_of(share))
        name = names[k]
        pool.cli("condorx.cli.submit", *(["-name", name] if name else []), path)

    with ThreadPoolExecutor(len(names)) as workers:
        list(workers.map(submit, range(len(names))))


def activities(pool: LocalPool) -> list[str]:
    client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    rows = trio.run(client.query_rows, "machine", ["Activity"])
    return [str(r[0]) for r in rows]


def busy_slots(pool: LocalPool) -> int:
    """How many slots the collector shows Busy (the count is all that travels: the
    bench's polling must cost the pool it measures little)."""
    client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    return len(trio.run(client.query_rows, "machine", ["1"], 'Activity == "Busy"'))


def rss_mib(pid: int) -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    m = re.search(r"VmRSS:\s+(\d+) kB", text)
    return int(m.group(1)) / 1024 if m else 0.0


def schedds_rss(pool: LocalPool) -> float:
    """The schedds' resident memory together, MiB."""
    procs = [pool.daemon(name).proc for name in daemons()]
    return sum(rss_mib(proc.pid) for proc in procs if proc is not None)


def rejections(pool: LocalPool) -> list[str]:
    """What each cycle left waiting, by reason (the negotiator's `cycle rejections`)."""
    text = (pool.root / "log" / "NegotiatorLog").read_text()
    return re.findall(r"cycle rejections: (.*)$", text, re.MULTILINE)


def cycles(pool: LocalPool) -> list[tuple[int, float, str]]:
    """(matches, seconds, phases) of each negotiation cycle that made matches."""
    text = (pool.root / "log" / "NegotiatorLog").read_text()
    found = re.findall(r"cycle: (\d+) matches, .*? ([\d.]+) s \((.*)\)$", text, re.MULTILINE)
    return [(int(m), float(s), p) for m, s, p in found if int(m) > 0]


def pool_ads(pool: LocalPool) -> list:
    client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    return trio.run(client.query_ads, "machine")


def job_ads(pool: LocalPool) -> list:
    """Every schedd's jobs."""

    async def read(name: str | None) -> list:
        client = ScheddClient(pool.cfg, name, creds=daemon_credentials(pool.cfg))
        jobs: list = []
        async with aclosing(client.query_ads("true")) as chunks:
            async for chunk in chunks:
                jobs.extend(chunk)
        return jobs

    return [job for _, name in schedds() for job in trio.run(read, name)]


def collector_intake(pool: LocalPool, slots: list, batch: int = 1000) -> float:
    """Slot ads a second the collector takes: the pool's own ads sent again, `batch` to
    an update, as a startd (or the simulator) sends them."""
    maps = [wire.ad_to_wire(ad) for ad in slots]

    async def send() -> float:
        client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
        t = time.perf_counter()
        for i in range(0, len(maps), batch):
            await client.advertise(maps[i : i + batch])
        return time.perf_counter() - t

    return len(maps) / trio.run(send)


def status_total(pool: LocalPool) -> float:
    """Wall seconds of `condor_status -total` (the whole tool, start to exit)."""
    t = time.perf_counter()
    pool.cli("condorx.cli.status", "-total")
    return time.perf_counter() - t


def in_process(slots: list, jobs: list, runs: int = 3) -> tuple[float, int]:
    """negotiate() over the ads the daemons held: the median wall time and the matches."""
    by_owner: dict[str, list] = {}
    for job in jobs:
        by_owner.setdefault(str(job.get("Owner")), []).append(job)
    submitters = [Submitter(f"{o}@bench", 0.5, js) for o, js in by_owner.items()]
    times, matches = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        matches = len(negotiate(slots, submitters).matches)
        times.append(time.perf_counter() - t)
    return statistics.median(times), matches


def queued(pool: LocalPool) -> int | None:
    """Jobs in the schedds' queues as their ads in the collector say (every
    SCHEDD_INTERVAL), None until each has one: asking the schedds for 150,000 rows every
    two seconds would load what is measured."""
    client = CollectorClient(pool.cfg, daemon_credentials(pool.cfg))
    rows = trio.run(client.query_rows, "scheduler", ["TotalJobAds"])
    counts = [r[0] for r in rows if isinstance(r[0], int)]
    return sum(counts) if len(counts) == SCHEDDS[0] else None


def cpu_seconds(pool: LocalPool) -> dict[str, float]:
    """Each running daemon's CPU so far (user and system), in seconds."""
    out: dict[str, float] = {}
    for name, daemon in pool.daemons.items():
        fields = stat_fields(daemon.proc.pid) if daemon.proc else None
        if fields is not None:  # utime and stime: proc(5)'s fields 14 and 15
            out[name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


# Where each daemon of the pool logs (the simulator, which HTCondor has no log name for,
# to its standard output).
LOGS = {
    "collector": "log/CollectorLog",
    "negotiator": "log/NegotiatorLog",
    "schedd": "log/SchedLog",
    "sim": "sim.out",
}


def collection_costs(pool: LocalPool, timeout: float = 60.0) -> dict[str, str]:
    """What garbage collection has cost each daemon so far: SIGUSR1 has each log it (a
    daemon with 100,000 tasks takes seconds to walk them first)."""
    more = {daemon: f"log/SchedLog.{name}" for daemon, name in schedds() if name}
    logs = {**LOGS, **more}
    paths = {name: pool.root / where for name, where in logs.items() if name in pool.daemons}
    start = {name: path.stat().st_size if path.exists() else 0 for name, path in paths.items()}
    for name in paths:
        proc = pool.daemons[name].proc
        if proc is not None:
            os.kill(proc.pid, signal.SIGUSR1)
    found: dict[str, str] = {}
    deadline = time.monotonic() + timeout
    while len(found) < len(paths) and time.monotonic() < deadline:
        time.sleep(1.0)
        for name, path in paths.items():
            if name not in found and path.exists():
                said = _said_since(path, start[name], "garbage collection so far: ")
                if said is not None:
                    found[name] = said
    return found


def _said_since(path: Path, offset: int, marker: str) -> str | None:
    """What follows `marker` on its first line in `path` past `offset`."""
    with open(path, "rb") as f:
        f.seek(offset)
        for raw in f:
            line = raw.decode(errors="replace")
            if marker in line:
                return line.split(marker, 1)[1].strip()
    return None


def print_collection(costs: dict[str, str]) -> None:
    print("  garbage collection, each daemon's life so far:")
    for name, cost in sorted(costs.items()):
        print(f"      {name:10} {cost}")


def profiled(profile: Path | None) -> str:
    """The configuration that leaves each daemon's cProfile statistics in `profile`."""
    if profile is None:
        return ""
    profile.mkdir(parents=True, exist_ok=True)
    return "".join(
        f"{name}_PROFILE = {profile.resolve()}/{name.lower()}.prof\n"
        for name in ("COLLECTOR", "NEGOTIATOR", "SCHEDD", "SIM")
    )


def turnover(
    slots: int, per_machine: int, duration: float, waves: int, profile: Path | None = None
) -> None:
    """`waves` times as many jobs of `duration` seconds as slots, run to the end: how many
    finish a second from 20% to 80% done (the waves in between, past the first fill and
    before the last drain), how busy the slots are meanwhile, and what CPU each daemon
    takes for it."""
    jobs = waves * slots
    with tempfile.TemporaryDirectory(prefix="turnover") as d:
        text = config(slots, per_machine, jobs).replace("SIM_JOB_DURATION = 3600", "")
        text += f"SIM_JOB_DURATION = {duration}\n" + profiled(profile)
        pool = LocalPool(Path(d), text)
        try:
            pool.start("collector", "negotiator", *daemons(), "sim", timeout=start_time(slots))
            while len(activities(pool)) < slots:
                time.sleep(0.5)
            submit_all(pool, lambda n: f"executable = /bin/true\nqueue {n}\n", jobs)
            t0 = time.monotonic()
            marks: dict[int, tuple[float, dict[str, float]]] = {}  # when, and daemons' CPU
            busy: list[float] = []
            while 80 not in marks:
                if time.monotonic() - t0 > 4 * waves * duration + 600:
                    raise SystemExit(f"the jobs did not run in {4 * waves * duration + 600:.0f} s")
                time.sleep(2.0)
                left = queued(pool)
                done = jobs - left if left is not None else 0
                for pct in (20, 80):
                    if pct not in marks and done >= jobs * pct / 100:
                        marks[pct] = (time.monotonic(), cpu_seconds(pool))
                if 20 in marks and 80 not in marks:
                    busy.append(busy_slots(pool) / slots)
            costs = collection_costs(pool)
        finally:
            pool.stop()
    (t20, cpu20), (t80, cpu80) = marks[20], marks[80]
    seconds = t80 - t20
    cpu = {n: cpu80[n] - cpu20[n] for n in cpu20 if n in cpu80}
    print(f"\n{slots:,} simulated slots, {jobs:,} jobs of {duration:.0f} s{with_schedds()}")
    print(
        f"  sustained turnover (20% to 80% done) {0.6 * jobs / seconds:8.0f} jobs/s"
        f"  (all slots busy would be {slots / duration:.0f} jobs/s)"
    )
    print(f"  slots busy meanwhile                 {100 * statistics.mean(busy):8.1f} %")
    print(
        "  CPU meanwhile, cores: "
        + ", ".join(f"{n} {v / seconds:.2f}" for n, v in sorted(cpu.items()))
    )
    print_collection(costs)


def submit_file(jobs: int, autoclusters: int) -> str:
    """One cluster of `jobs` procs in `autoclusters` groups: each group's memory request
    differs, so each is an autocluster of its own (issue 20's 1,000,000 jobs in 1,000)."""
    lines = ["executable = /bin/true"]
    for k in range(autoclusters):
        n = jobs // autoclusters + (1 if k < jobs % autoclusters else 0)
        lines += [f"request_memory = {1 + k}", f"queue {n}"]
    return "\n".join(lines) + "\n"


def start_time(slots: int) -> float:
    """How long the simulator may take to start: its slots' first polls (and their log
    lines) take about 30 s at 100,000 slots on a slow day."""
    return 30.0 + slots / 1000


def measure(
    slots: int, per_machine: int, timeout: float, profile: Path | None, jobs: int, groups: int
) -> None:
    with tempfile.TemporaryDirectory(prefix="scale") as d:
        pool = LocalPool(Path(d), config(slots, per_machine, jobs) + profiled(profile))
        try:
            pool.start("collector", "negotiator", *daemons())
            started = time.monotonic()
            pool.start("sim", timeout=start_time(slots))
            while len(activities(pool)) < slots:
                if time.monotonic() - started > timeout:
                    raise SystemExit("the simulated slots never all reached the collector")
                time.sleep(0.5)
            advertised = time.monotonic() - started
            free = pool_ads(pool)
            intake = statistics.median(collector_intake(pool, free) for _ in range(3))
            total = status_total(pool)
            schedd_idle = schedds_rss(pool)
            t0 = time.monotonic()
            submit_all(pool, lambda n: submit_file(n, groups), jobs)
            submitted = time.monotonic() - t0
            # The queue's own cost, before the first cycle's matches are claimed.
            schedd_queued = schedds_rss(pool)
            busy, filled = 0, None
            while time.monotonic() - t0 < timeout:
                busy = busy_slots(pool)
                if busy >= 0.95 * slots:
                    filled = time.monotonic() - t0
                    break
                time.sleep(1.0)
            # The cycle that filled the slots is logged once its last match is handed out.
            deadline = time.monotonic() + 120
            while not (done := cycles(pool)) and time.monotonic() < deadline:
                time.sleep(1.0)
            waiting = rejections(pool)
            rss = {n: rss_mib(p.proc.pid) for n, p in pool.daemons.items() if p.proc}
            schedd_end = sum(rss.get(name, 0.0) for name in daemons())
            queue = job_ads(pool)
            costs = collection_costs(pool)
        finally:
            pool.stop()
    inproc, inproc_matches = in_process(free, queue)
    print(
        f"\n{slots:,} simulated slots ({slots // per_machine} machines), "
        f"{jobs:,} jobs in {groups:,} autoclusters{with_schedds()}"
    )
    print(f"  ads in the collector after          {advertised:8.1f} s")
    print(f"  collector intake                     {intake:8,.0f} slot ads/s")
    print(f"  condor_status -total                 {total:8.2f} s")
    print(f"  condor_submit (acknowledged)         {submitted:8.1f} s")
    if filled is not None:
        print(f"  submission to 95% of slots busy      {filled:8.1f} s")
    else:
        print(f"  95% busy not reached in {timeout:.0f} s: {busy:,} of {slots:,} busy")
    for matches, seconds, phases in done[:5]:
        per = 1000 * seconds / matches
        print(f"  daemon cycle: {matches:6,} matches  {seconds:8.2f} s  ({per:.2f} ms a match)")
        print(f"      {phases}")
    if waiting:
        print(f"  jobs left waiting, by reason (first cycle): {waiting[0]}")
    print(f"  in-process negotiate(), same ads     {inproc:8.2f} s  ({inproc_matches:,} matches)")
    if done:
        print(f"  daemon cycle / in-process            {done[0][1] / inproc:8.1f} x")
    print("  resident memory, MiB: " + ", ".join(f"{n} {v:.0f}" for n, v in sorted(rss.items())))
    per_job = (schedd_end - schedd_idle) * 1024 / max(1, busy)
    print(f"  schedd memory per running job        {per_job:8.1f} KiB")
    per_queued = (schedd_queued - schedd_idle) * 1024 / jobs
    claims = (schedd_end - schedd_queued) * 1024 / max(1, busy)
    print(f"      of which the queue, per job queued {per_queued:6.1f} KiB (at acknowledgement)")
    print(f"      and the rest, per running job      {claims:6.1f} KiB")
    print_collection(costs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slots", type=int, nargs="+", default=[10_000])
    ap.add_argument("--per-machine", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--jobs", type=int, help="jobs submitted (twice the slots if not given)")
    ap.add_argument("--autoclusters", type=int, default=1, help="the jobs' autoclusters")
    ap.add_argument("--profile", type=Path, help="leave each daemon's cProfile stats here")
    ap.add_argument(
        "--turnover", type=float, metavar="SECONDS", help="also: jobs this long, the turnover"
    )
    ap.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="a configuration line"
    )
    ap.add_argument("--turnover-only", action="store_true", help="only the turnover run")
    ap.add_argument("--waves", type=int, default=5, help="turnover: jobs per slot")
    ap.add_argument("--schedds", type=int, default=1, help="schedds in each pool")
    args = ap.parse_args()
    EXTRA.extend(args.set)
    SCHEDDS[0] = max(1, args.schedds)
    for n in args.slots:
        jobs = args.jobs or 2 * n
        if not args.turnover_only:
            measure(n, args.per_machine, args.timeout, args.profile, jobs, args.autoclusters)
        if args.turnover:
            turnover(n, args.per_machine, args.turnover, args.waves, args.profile)


if __name__ == "__main__":
    main()
