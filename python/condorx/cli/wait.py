"""condor_wait: wait until the jobs a job event log tells of have completed or aborted.

condor_wait [-status] [-echo] [-wait SECONDS] [-num N] [-allevents] LOG [JOB]

It reads only the log (no daemon), as HTCondor's does: first everything already there, then
what is written as it grows. It exits 0 once the jobs are done (or -num of them, or at the
log's end with -wait 0), and 1 when -wait runs out, as HTCondor's condor_wait (wait.cpp).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn, TextIO

import trio

from condorx.cli import args as a
from condorx.cli.version import platform_string, version_string
from condorx.language import eventlog

TOOL = "condor_wait"
POLL = 0.2  # seconds between looks at a log that has not grown
OPTIONS = [
    a.Opt("version", 7, help="print the version and exit (with status 1, as HTCondor's)"),
    a.Opt("debug", 1, help="accepted (condorx has no debug log for this tool)"),
    a.Opt("status", 6, help="print each job's submission, execution and end"),
    a.Opt("echo", 4, help="print each event of the chosen jobs as the log has it"),
    a.Opt(
        "wait",
        4,
        1,
        help="give up after SECONDS (0: read to the log's end, then stop)",
        metavar="SECONDS",
    ),
    a.Opt("num", 3, 1, help="stop once N jobs have ended", metavar="N"),
    a.Opt("allevents", 3, help="go on after all jobs have ended (until -wait, else the end)"),
    a.Opt("log", 3, 1, help="the job event log (or give it as the first word)", metavar="LOG"),
]
USAGE = "condor_wait [options] <log-file> [job-number]"
ARGUMENTS = [
    ("LOG", "the job event log to read"),
    ("JOB", "cluster, cluster.proc or cluster.proc.subproc (default: every job)"),
]
_JOB = re.compile(r"^(-?\d+)(?:\.(-?\d+)(?:\.(-?\d+))?)?$")


@dataclass
class Wanted:
    """Which jobs count, and how the wait ends."""

    cluster: int | None = None  # None: any
    proc: int | None = None
    subproc: int | None = None
    status: bool = False
    echo: bool = False
    num: int = 0  # 0: all of them
    seconds: int | None = None  # None: no limit
    allevents: bool = False

    def matches(self, ev: eventlog.Event) -> bool:
        return all(
            want is None or want == got
            for want, got in (
                (self.cluster, ev.cluster),
                (self.proc, ev.proc),
                (self.subproc, ev.subproc),
            )
        )

    @property
    def dont_wait(self) -> bool:
        """Read to the end and stop there (-wait 0, or -allevents without -wait)."""
        return self.seconds == 0 or (self.allevents and self.seconds is None)


async def wait(path: Path, want: Wanted, out: TextIO, err: TextIO, poll: float = POLL) -> int:
    """The wait itself, on trio's clock: the exit status condor_wait gives."""
    tail = eventlog.Tail(path)
    deadline = trio.current_time() + want.seconds if want.seconds else None
    seen = _Seen()
    # First what the log already holds ...
    done = _take(tail, want, seen, out, err, initial=True)
    if done is not None:
        return done
    if not seen.table and not want.num:
        print("All jobs done.", file=out)
        return 0
    if want.dont_wait:
        return 0
    # ... then what is written to it, until the jobs are done or the time is up.
    while True:
        done = _take(tail, want, seen, out, err, initial=False)
        if done is not None:
            return done
        if deadline is not None and trio.current_time() >= deadline:
            if not seen.table and seen.submitted == 0:
                which = "any jobs" if want.cluster is None else "that job"
                print(f"This log does not mention {which}!", file=err)
            else:
                print("Time expired.", file=out)
            return 1
        step = poll if deadline is None else min(poll, deadline - trio.current_time())
        await trio.sleep(step)


@dataclass
class _Seen:
    table: set[str] = field(default_factory=set)  # submitted and not yet ended
    submitted: int = 0
    ended: int = 0


def _take(
    tail: eventlog.Tail, want: Wanted, seen: _Seen, out: TextIO, err: TextIO, initial: bool
) -> int | None:
    """Read what the log has now; the exit status when that ends the wait."""
    try:
        events = tail.read()
    except (OSError, eventlog.EventLogError) as e:
        print(f"{TOOL}: {e}", file=err)
        return 1
    for ev in events:
        if want.matches(ev):
            _note(ev, want, seen, out)
        if want.num and seen.ended >= want.num:
            print(f"Specifed number of jobs ({want.num}) done.", file=out)
            return 0
        if not seen.table and seen.submitted and not want.num and not initial:
            print("All jobs done.", file=out)
            return 0
    return None


def _note(ev: eventlog.Event, want: Wanted, seen: _Seen, out: TextIO) -> None:
    key = ev.job
    if want.echo:
        out.write(ev.raw())
    if ev.number == eventlog.SUBMIT:
        _say(want, out, f"{key} submitted")
        seen.table.add(key)
        seen.submitted += 1
    elif ev.number in (eventlog.TERMINATED, eventlog.ABORTED):
        _say(want, out, f"{key} {'completed' if ev.number == eventlog.TERMINATED else 'aborted'}")
        seen.table.discard(key)
        seen.ended += 1
    elif ev.number == eventlog.EXECUTE:
        _say(want, out, f"{key} executing on host {ev.host()}")


def _say(want: Wanted, out: TextIO, text: str) -> None:
    if want.status:
        print(text, file=out, flush=True)


# wait.cpp: -help exits 0, --help 1, on stderr.
@a.command(TOOL, OPTIONS, USAGE, ARGUMENTS, help_exit=(0, 1), help_to_stderr=True)
def main(ctx: a.Context) -> None:
    """Wait for the jobs of a job event log to complete."""
    opts = a.parsed(ctx)
    if "version" in opts.flags:
        print(version_string())
        print(platform_string())
        sys.exit(1)
    words = list(opts.positional)
    log = opts.value("log") or (words.pop(0) if words else None)
    if log is None:
        _usage("no log file given")
    want = Wanted(status="status" in opts.flags, echo="echo" in opts.flags)
    want.allevents = "allevents" in opts.flags
    want.num = _count(opts.value("num"), "-num")
    if want.num and want.allevents:
        _usage("-num cannot be used with -allevents")
    if opts.value("wait") is not None:
        want.seconds = _count(opts.value("wait"), "-wait", zero=True)
    if words:
        job = words.pop(0)
        if job != "-1":
            m = _JOB.match(job)
            if m is None:
                print(f"Couldn't understand job number: {job}", file=sys.stderr)
                sys.exit(1)
            want.cluster, want.proc, want.subproc = (int(g) if g else None for g in m.groups())
    if words:
        _usage(f"Extra argument: {words[0]}")
    path = Path(log)
    try:
        open(path, "rb").close()
    except OSError as e:
        print(f"Couldn't open {log}: {e.strerror}", file=sys.stderr)
        sys.exit(1)
    sys.exit(trio.run(wait, path, want, sys.stdout, sys.stderr))


def _count(text: str | None, option: str, zero: bool = False) -> int:
    if text is None:
        return 0
    try:
        n = int(text)
    except ValueError:
        _usage(f"{option} takes a whole number, not {text!r}")
    if n < 0 or (n == 0 and not zero):
        _usage(f"{option} must be greater than zero")
    return n


def _usage(problem: str) -> NoReturn:
    print(f"{problem}\n\nUse: {USAGE}\n(condor_wait -help lists the options)", file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    main()
