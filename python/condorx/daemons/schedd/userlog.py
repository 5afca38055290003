"""The job event log (`log = file` in a submit description), in HTCondor's text format.

Each event is a header line `NNN (CCC.PPP.SSS) YYYY-MM-DD HH:MM:SS text`, body lines that
start with a tab, and a closing `...` line, as HTCondor's user log writes them (ISO dates,
its default since 8.8), so tools that read HTCondor logs read ours.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.schedd.queue import Event, EventKind
from condorx.host import accounts

SUBMIT, EXECUTE, EVICTED, ABORTED, TERMINATED, HELD, RELEASED = 0, 1, 4, 9, 5, 12, 13
SUSPENDED, UNSUSPENDED = 10, 11
# HTCondor's ULOG_GRID_RESOURCE_UP, ULOG_GRID_RESOURCE_DOWN, ULOG_GRID_SUBMIT
GRID_UP, GRID_DOWN, GRID_SUBMIT = 25, 26, 27

_USAGE = (
    "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n"
    "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n"
    "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Remote Usage\n"
    "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n"
    "\t0  -  Run Bytes Sent By Job\n"
    "\t0  -  Run Bytes Received By Job\n"
    "\t0  -  Total Bytes Sent By Job\n"
    "\t0  -  Total Bytes Received By Job\n"
)


def timestamp(now: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))


# Each kind's body: from the event's info (and for SUBMIT, the job's SubmitEventNotes).
Body = Callable[[dict[str, Any], object], str]


def _submit_notes(info: dict[str, Any], notes: object) -> str:
    return f"    {notes}\n" if isinstance(notes, str) and notes else ""


def _grid_resource(info: dict[str, Any], notes: object) -> str:
    return f"    GridResource: {info.get('resource', '')}\n"


def _grid_submit(info: dict[str, Any], notes: object) -> str:
    return _grid_resource(info, notes) + f"    GridJobId: {info.get('grid_id', '')}\n"


def _reason(info: dict[str, Any], notes: object) -> str:
    return f"\t{info.get('reason', '')}\n"


def _evicted(info: dict[str, Any], notes: object) -> str:
    # HTCondor's JobEvictedEvent: its readers stop at the log's first eviction unless
    # the run's usage lines come before the reason.
    reason = info.get("reason")
    return (
        "\t(0) CPU times\n"
        + "".join(_USAGE.splitlines(keepends=True)[:2])
        + "\t0  -  Run Bytes Sent By Job\n\t0  -  Run Bytes Received By Job\n"
        + (f"\tReason: {reason}\n" if reason else "")
    )


def _suspended(info: dict[str, Any], notes: object) -> str:
    return "\tNumber of processes actually suspended: 1\n"


def _held(info: dict[str, Any], notes: object) -> str:
    codes = f"Code {info.get('code', 0)} Subcode {info.get('subcode', 0)}"
    return _reason(info, notes) + f"\t{codes}\n"


def _terminated(info: dict[str, Any], notes: object) -> str:
    if info.get("signal") is not None:
        how = f"\t(0) Abnormal termination (signal {info['signal']})\n\t(0) No core file\n"
    else:
        how = f"\t(1) Normal termination (return value {info.get('code') or 0})\n"
    return how + _USAGE


def _nothing(info: dict[str, Any], notes: object) -> str:
    return ""


# Each event kind the log shows: its number, its header text ({host}: the execute host,
# {schedd}: this schedd's address) and its body, as HTCondor's user log writes them.
# EventKind.LEAVE is not a log event.
FORMATS: dict[EventKind, tuple[int, str, Body]] = {
    EventKind.SUBMIT: (SUBMIT, "Job submitted from host: {schedd}", _submit_notes),
    EventKind.EXECUTE: (EXECUTE, "Job executing on host: {host}", _nothing),
    EventKind.EVICT: (EVICTED, "Job was evicted.", _evicted),
    EventKind.SUSPEND: (SUSPENDED, "Job was suspended.", _suspended),
    EventKind.UNSUSPEND: (UNSUSPENDED, "Job was unsuspended.", _nothing),
    EventKind.HOLD: (HELD, "Job was held.", _held),
    EventKind.RELEASE: (RELEASED, "Job was released.", _reason),
    EventKind.ABORT: (ABORTED, "Job was aborted.", _reason),
    EventKind.TERMINATE: (TERMINATED, "Job terminated.", _terminated),
    EventKind.GRID_SUBMIT: (GRID_SUBMIT, "Job submitted to grid resource", _grid_submit),
    EventKind.GRID_DOWN: (GRID_DOWN, "Detected Down Grid Resource", _grid_resource),
    EventKind.GRID_UP: (GRID_UP, "Grid Resource Back Up", _grid_resource),
}


def format_event(ev: Event, head: str, schedd_addr: str, notes: object = None) -> str | None:
    """The event's text (`head` is its timestamp), or None for events the log omits;
    `notes` (the job's SubmitEventNotes) go on the submit event's second line."""
    found = FORMATS.get(ev.kind)
    if found is None:
        return None
    number, text, body = found
    cluster, proc = ev.key
    title = text.format(schedd=schedd_addr, host=ev.info.get("host", ""))
    job = f"({cluster:03d}.{proc:03d}.000)"
    return f"{number:03d} {job} {head} {title}\n{body(ev.info, notes)}...\n"


def log_path(ad: ClassAd, attr: str = "UserLog") -> Path | None:
    """Where the job's events go: UserLog, relative to Iwd when not absolute."""
    name = ad.get(attr)
    if not isinstance(name, str) or not name:
        return None
    iwd = ad.get("Iwd")
    return _resolve(name, iwd if isinstance(iwd, str) else "/")


def log_paths(ad: ClassAd, number: int) -> list[Path]:
    """Every log an event goes to: the job's own, and a DAG node job's nodes log
    (DAGManNodesLog) when DAGManNodesMask lists the event (all events when it has none)."""
    paths = []
    own = log_path(ad)
    if own is not None:
        paths.append(own)
    nodes = log_path(ad, "DAGManNodesLog")
    if nodes is not None and nodes != own and number in _mask(ad.get("DAGManNodesMask")):
        paths.append(nodes)
    return paths


_ALL_EVENTS = frozenset(range(64))


@functools.lru_cache(maxsize=16)
def _mask(text: object) -> frozenset[int]:
    if not isinstance(text, str):
        return _ALL_EVENTS
    try:
        return frozenset(int(w) for w in text.split(",") if w.strip())
    except ValueError:
        return _ALL_EVENTS


def number_of(text: str) -> int:
    """The event number a formatted event starts with."""
    return int(text[:3])


@functools.lru_cache(maxsize=1024)
def _resolve(name: str, iwd: str) -> Path:
    # The procs of a cluster share one log: resolve it once, not once per event.
    path = Path(name)
    return path if path.is_absolute() else Path(iwd) / path


def write_events(events: Iterable[tuple[Path, str, object]]) -> list[str]:
    """Append each text to its file (grouped per file), with the rights of the job's
    owner (the third item; a root schedd must not append to a file only root may write,
    such as /etc/passwd named as a user log); returns the errors met."""
    by_file: dict[tuple[object, Path], list[str]] = {}
    for path, text, owner in events:
        by_file.setdefault((owner, path), []).append(text)
    errors = []
    for (owner, path), texts in by_file.items():
        try:
            with accounts.as_account(accounts.of_owner(owner)):
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, "".join(texts).encode())
            finally:
                os.close(fd)
        except (OSError, accounts.AccountError) as e:
            errors.append(f"cannot write the user log {path}: {getattr(e, 'strerror', e)}")
    return errors
