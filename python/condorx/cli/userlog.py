"""condor_userlog: how the runs of the jobs in job event logs went, and by host and job.

condor_userlog [-total | -raw] [-debug] [-evict] [-j cluster[.proc]] [-all] [-hostname] LOG...

Each run (from an execute event to the eviction, termination or failure that ends it) is a
row: its job, host, start and end, wall time, good time (what was not lost) and CPU. Then
the runs are summed by host and by job, as HTCondor's condor_userlog (userlog.cpp) prints
them. One difference: HTCondor's per-job and total rows read all zeros (its statistics are
added into a copy); condorx's add up.
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condorx.cli import args as a
from condorx.cli.timefmt import format_date, format_time_nosecs
from condorx.language import eventlog

TOOL = "condor_userlog"
OPTIONS = [
    a.Opt("total", 1, help="only display the totals (by host and by job)"),
    a.Opt("raw", 1, help="display the runs only, with no heading and no totals"),
    a.Opt("debug", 1, help="say on stderr which events are discarded, and why"),
    a.Opt("evict", 1, help="only the runs that ended in an eviction"),
    a.Opt("j", 1, 1, help="only this cluster, or cluster.proc", metavar="CLUSTER[.PROC]"),
    a.Opt("all", 1, help="every cluster and every run (undoes -j and -evict)"),
    a.Opt("hostname", 2, help="name each host by its DNS name, not its address"),
]
USAGE = (
    "condor_userlog [-total | -raw] [-debug] [-evict] [-j cluster[.proc]] [-all] [-hostname] LOG..."
)


@dataclass
class Stats:
    """Runs added up, for a host or a job."""

    allocations: int = 0
    kills: int = 0
    wall: int = 0
    good: int = 0
    cpu: int = 0

    def add(self, wall: int, good: int, cpu: int) -> None:
        self.allocations += 1
        self.kills += wall != good
        self.wall += wall
        self.good += good
        self.cpu += cpu

    def row(self, name: str) -> str:
        avg = format_time_nosecs(self.wall / self.allocations) if self.allocations else "0+00:00"
        lost = format_time_nosecs((self.wall - self.good) / self.kills) if self.kills else "0+00:00"
        goodput = self.good / self.wall * 100 if self.wall else 0.0
        util = self.cpu / self.good * 100 if self.good else 0.0
        times = (format_time_nosecs(t) for t in (self.wall, self.good, self.cpu))
        return (
            f"{name[:15]:<15} "
            + "".join(f"{t[:9]:>9} " for t in (*times, avg, lost))
            + f"{goodput:6.1f}% {util:5.1f}%"
        )


@dataclass
class Report:
    totals_only: bool = False
    raw: bool = False
    debug: bool = False
    evict_only: bool = False
    hostnames: bool = False
    cluster: int = -1
    proc: int = -1
    hosts: dict[str, tuple[str, Stats]] = field(default_factory=dict)  # ip -> (shown, stats)
    jobs: dict[tuple[int, int], Stats] = field(default_factory=dict)
    header_done: bool = False

    def read(self, path: Path) -> None:
        """One log's runs (HTCondor's read_log)."""
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        running: dict[tuple[int, int], eventlog.Event] = {}
        checkpoints: dict[tuple[int, int], eventlog.Event] = {}
        for ev in eventlog.parse_events(text, str(path)):
            if self.cluster not in (-1, ev.cluster) or self.proc not in (-1, ev.proc):
                continue
            key = (ev.cluster, ev.proc)
            if ev.number == eventlog.EXECUTE:
                self._execute(key, ev, running)
            elif ev.number == eventlog.CHECKPOINTED:
                checkpoints[key] = ev
            elif ev.number in _ENDS:
                start = running.pop(key, None)
                if start is None:
                    self._say(f"internal error: can't find execute event for job {ev.job}!")
                    continue
                self._ended(key, start, ev, checkpoints.get(key))

    def _execute(
        self, key: tuple[int, int], ev: eventlog.Event, running: dict[tuple[int, int], Any]
    ) -> None:
        before = running.get(key)
        if before is not None and before.host() == ev.host():
            # The first of two execute events on one host stands (old shadows logged one
            # before every event).
            self._say(f"warning: discarding execute event (job {key[0]}.{key[1]})")
            return
        running[key] = ev

    def _ended(
        self,
        key: tuple[int, int],
        start: eventlog.Event,
        ev: eventlog.Event,
        ckpt: eventlog.Event | None,
    ) -> None:
        begin, end = int(start.time), int(ev.time)
        if ev.number == eventlog.TERMINATED:
            if not self.evict_only:
                cpu = int(ev.usage("Run Remote Usage") or 0)
                self._record(key, begin, end, end - begin, cpu, start.host())
            return
        if ev.number != eventlog.EVICTED and self.evict_only:
            return
        checkpointed = ev.number == eventlog.EVICTED and any(
            "(1) Job was checkpointed" in b for b in ev.body
        )
        if checkpointed:
            good_until, cpu = end, int(ev.usage("Run Remote Usage") or 0)
        elif ckpt is not None and ckpt.time >= begin:
            good_until, cpu = int(ckpt.time), int(ckpt.usage("Run Remote Usage") or 0)
        else:
            good_until, cpu = begin, 0
        self._record(key, begin, end, good_until - begin, cpu, start.host())

    def _record(
        self, key: tuple[int, int], start: int, end: int, good: int, cpu: int, host: str
    ) -> None:
        wall = end - start
        if wall < 0 or good < 0 or cpu < 0:
            self._say(f"internal error: negative time computed for {key[0]}.{key[1]}!")
            return
        self.jobs.setdefault(key, Stats()).add(wall, good, cpu)
        ip = host.lstrip("<").split(":", 1)[0].split("?", 1)[0]
        if ip not in self.hosts:
            self.hosts[ip] = (self._host_name(ip), Stats())
        shown, stats = self.hosts[ip]
        stats.add(wall, good, cpu)
        if self.totals_only:
            return
        if not self.raw and not self.header_done:
            print()
            print(
                f"{'Job':<8} {'Host':<15} {'Start Time':<11} {'Evict Time':<11}"
                f" {'Wall Time':>9} {'Good Time':>9} {'CPU Usage':>9}"
            )
            self.header_done = True
        job = f"{key[0]}.{key[1]}"
        print(
            f"{job[:8]:<8} {shown[:15]:<15} {format_date(start):>11} {format_date(end):>11} "
            f"{format_time_nosecs(wall):>9} {format_time_nosecs(good):>9} "
            f"{format_time_nosecs(cpu):>9}"
        )

    def _host_name(self, ip: str) -> str:
        if not self.hostnames:
            return ip
        try:
            return socket.gethostbyaddr(ip)[0]
        except OSError:
            return ip

    def _say(self, text: str) -> None:
        if self.debug:
            print(text, file=sys.stderr)

    def summary(self) -> None:
        print(
            f"{'Host/Job':<15} {'Wall Time':>9} {'Good Time':>9} {'CPU Usage':>9}"
            f" {'Avg Alloc':>9} {'Avg Lost':>9} {'Goodput':>7} {'Util.':>6}"
        )
        print()
        for ip in sorted(self.hosts):
            shown, stats = self.hosts[ip]
            print(stats.row(shown))
        print()
        total = Stats()
        for key in sorted(self.jobs):
            stats = self.jobs[key]
            print(stats.row(f"{key[0]}.{key[1]}"))
            for name in ("allocations", "kills", "wall", "good", "cpu"):
                setattr(total, name, getattr(total, name) + getattr(stats, name))
        print()
        print(total.row("Total"))


_ENDS = (
    eventlog.EVICTED,
    eventlog.TERMINATED,
    eventlog.EXECUTABLE_ERROR,
    eventlog.RECONNECT_FAILED,
    eventlog.SHADOW_EXCEPTION,
)


# userlog.cpp: -h... exits 0, --help 1, on stderr.
@a.command(
    TOOL,
    OPTIONS,
    USAGE,
    [("LOG", "a job event log (several may be given)")],
    help_exit=(0, 1),
    help_to_stderr=True,
)
def main(ctx: a.Context) -> None:
    """Summarize the runs of the jobs in job event logs."""
    opts = a.parsed(ctx)
    if not opts.positional:
        raise a.UsageError(f"{TOOL}: give at least one log file")
    report = Report(
        totals_only="total" in opts.flags,
        raw="raw" in opts.flags,
        debug="debug" in opts.flags,
        evict_only="evict" in opts.flags and "all" not in opts.flags,
        hostnames="hostname" in opts.flags,
    )
    if opts.value("j") and "all" not in opts.flags:
        _select(report, opts.value("j") or "")
    read_any = False
    for word in opts.positional:
        path = Path(word)
        try:
            open(path, "rb").close()
        except OSError as e:
            print(f"Can't access file: {word} (errno={e.errno})", file=sys.stderr)
            continue
        try:
            report.read(path)
        except (OSError, eventlog.EventLogError) as e:
            # HTCondor's says this and exits 0.
            print(f"Error: unable to read log file. ({e})", file=sys.stderr)
            sys.exit(0)
        read_any = True
    if read_any and not report.raw:
        print()
        report.summary()


def _select(report: Report, text: str) -> None:
    cluster, _, proc = text.partition(".")
    report.cluster = int(cluster) if cluster.lstrip("-").isdigit() else -1
    report.proc = int(proc) if proc.lstrip("-").isdigit() else -1


if __name__ == "__main__":
    main()
