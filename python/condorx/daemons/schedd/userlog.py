"""The job event log (`log = file` in a submit description), in HTCondor's text format.

Each event is a header line `NNN (CCC.PPP.SSS) YYYY-MM-DD HH:MM:SS text`, body lines that
start with a tab, and a closing `...` line, as HTCondor's user log writes them (ISO dates,
its default since 8.8), so tools that read HTCondor logs read ours.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Iterable
from pathlib import Path

from condorx import accounts
from condorx.classad import ClassAd
from condorx.daemons.schedd.queue import Event

SUBMIT, EXECUTE, EVICTED, ABORTED, TERMINATED, HELD, RELEASED = 0, 1, 4, 9, 5, 12, 13
SUSPENDED, UNSUSPENDED = 10, 11
GRID_DOWN, GRID_UP, GRID_SUBMIT = 25, 26, 27

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


def format_event(ev: Event, head: str, schedd_addr: str, notes: object = None) -> str | None:
    """The event's text (`head` is its timestamp), or None for events the log omits;
    `notes` (the job's SubmitEventNotes) go on the submit event's second line."""
    cluster, proc = ev.key
    info = ev.info

    def line(num: int, text: str, body: str = "") -> str:
        return f"{num:03d} ({cluster:03d}.{proc:03d}.000) {head} {text}\n{body}...\n"

    if ev.kind == "submit":
        body = f"    {notes}\n" if isinstance(notes, str) and notes else ""
        return line(SUBMIT, f"Job submitted from host: {schedd_addr}", body)
    if ev.kind == "grid_submit":
        body = (
            f"    GridResource: {info.get('resource', '')}\n"
            f"    GridJobId: {info.get('grid_id', '')}\n"
        )
        return line(GRID_SUBMIT, "Job submitted to grid resource", body)
    if ev.kind in ("grid_down", "grid_up"):
        body = f"    GridResource: {info.get('resource', '')}\n"
        if ev.kind == "grid_down":
            return line(GRID_DOWN, "Detected Down Grid Resource", body)
        return line(GRID_UP, "Detected Up Grid Resource", body)
    if ev.kind == "execute":
        return line(EXECUTE, f"Job executing on host: {info.get('host', '')}")
    if ev.kind == "evict":
        why = f"\t(0) Job was not checkpointed.\n\t{info.get('reason', '')}\n"
        return line(EVICTED, "Job was evicted.", why)
    if ev.kind == "suspend":
        count = "\tNumber of processes actually suspended: 1\n"
        return line(SUSPENDED, "Job was suspended.", count)
    if ev.kind == "unsuspend":
        return line(UNSUSPENDED, "Job was unsuspended.")
    if ev.kind == "hold":
        codes = f"Code {info.get('code', 0)} Subcode {info.get('subcode', 0)}"
        body = f"\t{info.get('reason', '')}\n\t{codes}\n"
        return line(HELD, "Job was held.", body)
    if ev.kind == "release":
        return line(RELEASED, "Job was released.", f"\t{info.get('reason', '')}\n")
    if ev.kind == "abort":
        return line(ABORTED, "Job was aborted.", f"\t{info.get('reason', '')}\n")
    if ev.kind == "terminate":
        if info.get("signal") is not None:
            how = f"\t(0) Abnormal termination (signal {info['signal']})\n\t(0) No core file\n"
        else:
            how = f"\t(1) Normal termination (return value {info.get('code') or 0})\n"
        return line(TERMINATED, "Job terminated.", how + _USAGE)
    return None


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
