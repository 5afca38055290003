"""condor_check_userlogs: read job event logs and check that each job's events make sense.

condor_check_userlogs LOG [LOG ...]

Every event is listed (the logs' events merged oldest first, as HTCondor's reader merges
them), each job is checked as HTCondor's CheckEvents checks it (one submit, one end, nothing
run after its end), and the verdict is `Log(s) are okay` (exit 0) or `Log(s) have error(s)`
(exit 1), with each problem on stderr.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from condorx.language import eventlog


@dataclass
class _Job:
    submits: int = 0
    terms: int = 0
    aborts: int = 0

    @property
    def ends(self) -> int:
        return self.terms + self.aborts


class Checker:
    """HTCondor's CheckEvents with no allowances: each problem is an error."""

    def __init__(self) -> None:
        self.jobs: dict[tuple[int, int, int], _Job] = {}

    def check(self, ev: eventlog.Event) -> str:
        """The problem this event shows (the last one found, as HTCondor reports it), or ""."""
        job = self.jobs.setdefault((ev.cluster, ev.proc, ev.subproc), _Job())
        who = f"BAD EVENT: job ({ev.job})"
        problem = ""
        if ev.number == eventlog.SUBMIT:
            job.submits += 1
            if job.submits != 1:
                problem = f"{who} submitted, submit count != 1 ({job.submits})"
            if job.ends != 0:
                problem = f"{who} submitted, total end count != 0 ({job.ends})"
        elif ev.number == eventlog.EXECUTE:
            if job.submits < 1:
                problem = f"{who} executing, submit count < 1 ({job.submits})"
            if job.ends != 0:
                problem = f"{who} executing, total end count != 0 ({job.ends})"
        elif ev.number in (eventlog.TERMINATED, eventlog.ABORTED):
            if ev.number == eventlog.TERMINATED:
                job.terms += 1
            else:
                job.aborts += 1
            if job.submits < 1:
                problem = f"{who} ended, submit count < 1 ({job.submits})"
            if job.ends != 1:
                problem = f"{who} ended, total end count != 1 ({job.ends})"
        return problem

    def check_all(self) -> str:
        """What is wrong with the jobs as the logs leave them, joined by "; "."""
        problems = []
        for (cluster, proc, sub), job in self.jobs.items():
            if sub != 0:  # a parallel universe node
                continue
            who = f"BAD EVENT: job ({cluster}.{proc}.{sub})"
            problem = ""
            if job.submits != 1:
                problem = f"{who} ended, submit count != 1 ({job.submits})"
            if job.ends != 1:
                problem = f"{who} ended, total end count != 1 ({job.ends})"
            if problem:
                problems.append(problem)
        return "; ".join(problems)


def main(argv: list[str] | None = None) -> None:
    words = sys.argv[1:] if argv is None else argv
    if not words or words[0] in ("-usage", "-help", "--help"):
        print("Usage: condor_check_userlogs <log file 1> [log file 2] ... [log file n]")
        return
    failed = False
    events: list[tuple[float, int, int, eventlog.Event]] = []
    missing = False
    for n, name in enumerate(words):
        try:
            text = Path(name).read_bytes().decode("utf-8", "surrogateescape")
        except OSError as e:
            print(f"Error monitoring log file {name}: {e.strerror}", file=sys.stderr)
            failed = True
            continue
        got: list[eventlog.Event] = []
        try:
            for ev in eventlog.parse_events(text, name):
                got.append(ev)
        except eventlog.EventLogError as e:
            # As HTCondor's reader: the log's events up to what it cannot read, and the
            # verdict says some logs could not be read.
            print(f"Error reading log file {name}: {e}", file=sys.stderr)
            missing = True
        events += [(ev.time, n, i, ev) for i, ev in enumerate(got)]
    checker = Checker()
    submitted = net = 0
    for _, _, _, ev in sorted(events, key=lambda e: e[:3]):
        line = f"Log event: {ev.name} ({ev.job})"
        problem = checker.check(ev)
        if problem:
            sys.stdout.flush()
            print(problem, file=sys.stderr)
            failed = True
        if ev.number == eventlog.SUBMIT:
            submitted += 1
            net += 1
            line += f' ("{_notes(ev)}")\n Total submitted: {submitted}; net submitted: {net}\n'
        elif ev.number == eventlog.HELD:
            code, sub = ev.hold_codes()
            line += f" (code={code} subcode={sub})"
        elif ev.number in (eventlog.TERMINATED, eventlog.ABORTED, eventlog.EXECUTABLE_ERROR):
            net -= 1
            line += f"\n Total submitted: {submitted}; net submitted: {net}\n"
        print(line)
    print(f"Log outcome: {'ULOG_RD_ERROR ' if missing else 'ULOG_NO_EVENT '}")
    final = checker.check_all()
    if final:
        print(final, file=sys.stderr)
        print("CheckAllJobs() result: EVENT_ERROR", file=sys.stderr)
        failed = True
    if failed:
        print("Log(s) have error(s)")
    elif missing:
        print("Log(s) may be okay\nSome logs cannot be read")
    else:
        print("Log(s) are okay")
    sys.exit(1 if failed else 0)


def _notes(ev: eventlog.Event) -> str:
    """A submit event's notes: its body's first line (DAGMan writes the node's name)."""
    return ev.body[0].strip() if ev.body else ""


if __name__ == "__main__":
    main()
