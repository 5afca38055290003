"""What the kernel says of a job's processes, for tests that suspend and continue jobs
(and of the processes a daemon started, for tests and benches).

A job is stopped as a whole (SIGSTOP to its process group), so a test must look at the
whole session, not at one process: dash starts each command with vfork, and a SIGSTOP that
lands between the vfork and the exec stops the child while the shell, still waiting for
the vfork to end, shows D and can never reach its own stop. The job makes no progress, yet
the shell is not T (seen here in 120 of 3,000 stops of a `while true` loop)."""

from __future__ import annotations

from pathlib import Path

from condorx.host.procfs import stat_fields


def session(leader: int) -> dict[int, tuple[str, int]]:
    """Each live process of the session `leader` leads: pid -> (state, parent pid)."""
    found = {}
    for entry in Path("/proc").iterdir():
        fields = stat_fields(entry.name) if entry.name.isdigit() else None
        # From the state on: state, ppid, pgrp, session.
        if fields is not None and int(fields[3]) == leader and fields[0] != "Z":
            found[int(entry.name)] = (fields[0], int(fields[1]))
    return found


def descendants(root: int, session: int | None = None) -> set[int]:
    """The live processes `root` started, theirs, and so on; with `session`, only through
    processes of that session (a job leads a session of its own)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        fields = stat_fields(entry.name) if entry.name.isdigit() else None
        if fields is not None and (session is None or int(fields[3]) == session):
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    grew = {root}
    while grew:
        grew = {p for p, parent in parents.items() if parent in grew} - found
        found |= grew
    return found


def _stopped(state: str) -> bool:
    return state in ("T", "t")


def job_stopped(leader: int) -> bool:
    """Every process of the job is stopped: T, or a vfork parent whose child is stopped."""
    procs = session(leader)
    if not procs:
        return False
    stopped_parents = {ppid for state, ppid in procs.values() if _stopped(state)}
    return all(
        _stopped(state) or (state == "D" and pid in stopped_parents)
        for pid, (state, _) in procs.items()
    )


def job_running(leader: int) -> bool:
    """The job lives and none of its processes is stopped."""
    procs = session(leader)
    return bool(procs) and not any(_stopped(state) for state, _ in procs.values())
