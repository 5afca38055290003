"""Reading a job event log (user log) in HTCondor's text format, as its tools read it.

An event is a header line `NNN (CCC.PPP.SSS) DATE TIME text`, body lines, and a closing
`...` line. DATE is ISO (`2026-11-27 04:01:07`, HTCondor's default since 8.8) or the older
`MM/DD HH:MM:SS`, which has no year. `Tail` hands out the complete events of a file that is
still being written, from where it left off, so a half-written event waits for its end.
"""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from condorx.errors import CondorxError

# Event numbers and the names HTCondor's tools print for them (ULogEventNumberNames).
NAMES = (
    "ULOG_SUBMIT",
    "ULOG_EXECUTE",
    "ULOG_EXECUTABLE_ERROR",
    "ULOG_CHECKPOINTED",
    "ULOG_JOB_EVICTED",
    "ULOG_JOB_TERMINATED",
    "ULOG_IMAGE_SIZE",
    "ULOG_SHADOW_EXCEPTION",
    "ULOG_GENERIC",
    "ULOG_JOB_ABORTED",
    "ULOG_JOB_SUSPENDED",
    "ULOG_JOB_UNSUSPENDED",
    "ULOG_JOB_HELD",
    "ULOG_JOB_RELEASED",
    "ULOG_NODE_EXECUTE",
    "ULOG_NODE_TERMINATED",
    "ULOG_POST_SCRIPT_TERMINATED",
    "ULOG_GLOBUS_SUBMIT",
    "ULOG_GLOBUS_SUBMIT_FAILED",
    "ULOG_GLOBUS_RESOURCE_UP",
    "ULOG_GLOBUS_RESOURCE_DOWN",
    "ULOG_REMOTE_ERROR",
    "ULOG_JOB_DISCONNECTED",
    "ULOG_JOB_RECONNECTED",
    "ULOG_JOB_RECONNECT_FAILED",
    "ULOG_GRID_RESOURCE_UP",
    "ULOG_GRID_RESOURCE_DOWN",
    "ULOG_GRID_SUBMIT",
    "ULOG_JOB_AD_INFORMATION",
    "ULOG_JOB_STATUS_UNKNOWN",
    "ULOG_JOB_STATUS_KNOWN",
    "ULOG_JOB_STAGE_IN",
    "ULOG_JOB_STAGE_OUT",
    "ULOG_ATTRIBUTE_UPDATE",
    "ULOG_PRESKIP",
    "ULOG_CLUSTER_SUBMIT",
    "ULOG_CLUSTER_REMOVE",
    "ULOG_FACTORY_PAUSED",
    "ULOG_FACTORY_RESUMED",
    "ULOG_NONE",
    "ULOG_FILE_TRANSFER",
    "ULOG_RESERVE_SPACE",
    "ULOG_RELEASE_SPACE",
    "ULOG_FILE_COMPLETE",
    "ULOG_FILE_USED",
    "ULOG_FILE_REMOVED",
    "ULOG_DATAFLOW_JOB_SKIPPED",
    "ULOG_COMMON_FILES",
)
SUBMIT, EXECUTE, EXECUTABLE_ERROR, CHECKPOINTED, EVICTED, TERMINATED = range(6)
SHADOW_EXCEPTION, ABORTED, SUSPENDED, UNSUSPENDED, HELD, RELEASED = 7, 9, 10, 11, 12, 13
RECONNECT_FAILED, FILE_TRANSFER = 24, 40

_HEAD = re.compile(
    r"^(\d{3}) \((-?\d+)\.(-?\d+)\.(-?\d+)\) "
    r"(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?|\d{2}/\d{2} \d{2}:\d{2}:\d{2})"
    r"\s?(.*)$"
)
_USAGE = re.compile(r"Usr (\d+) (\d+):(\d+):(\d+), Sys (\d+) (\d+):(\d+):(\d+)\s+-\s+(.*)$")


class EventLogError(CondorxError):
    """A log that is not a job event log, or an event that does not parse."""


@dataclass
class Event:
    number: int
    cluster: int
    proc: int
    subproc: int
    time: float  # seconds since the epoch
    text: str  # what follows the time on the header line
    body: list[str] = field(default_factory=list)
    head: str = ""  # the header line as written

    def raw(self) -> str:
        """The event as the log has it, with its closing `...` line."""
        return "".join(f"{line}\n" for line in (self.head, *self.body)) + "...\n"

    @property
    def name(self) -> str:
        return NAMES[self.number] if 0 <= self.number < len(NAMES) else f"ULOG_{self.number}"

    @property
    def job(self) -> str:
        return f"{self.cluster}.{self.proc}.{self.subproc}"

    def host(self) -> str:
        """The execute host an execute event names (its sinful string)."""
        return self.text.rpartition(": ")[2].strip() if self.number == EXECUTE else ""

    def usage(self, which: str) -> float | None:
        """CPU seconds (user + system) of a body line like `Usr 0 00:00:01, Sys 0
        00:00:00  -  Run Remote Usage`, by its label ("Run Remote Usage")."""
        for line in self.body:
            m = _USAGE.search(line)
            if m and m.group(9).strip() == which:
                d1, h1, m1, s1, d2, h2, m2, s2 = (int(g) for g in m.groups()[:8])
                return d1 * 86400 + h1 * 3600 + m1 * 60 + s1 + d2 * 86400 + h2 * 3600 + m2 * 60 + s2
        return None

    def return_value(self) -> int | None:
        for line in self.body:
            m = re.search(r"return value (-?\d+)", line)
            if m:
                return int(m.group(1))
        return None

    def signal(self) -> int | None:
        for line in self.body:
            m = re.search(r"\(signal (\d+)\)", line)
            if m:
                return int(m.group(1))
        return None

    def hold_codes(self) -> tuple[int, int]:
        m = re.search(r"Code (-?\d+) Subcode (-?\d+)", " ".join(self.body))
        return (int(m.group(1)), int(m.group(2))) if m else (0, 0)

    def reason(self) -> str:
        """The first body line: a hold's, release's, abort's or eviction's reason."""
        lines = [b.strip() for b in self.body if b.strip()]
        return lines[0] if lines else ""


def _when(text: str) -> float:
    if "-" in text:
        base = text.rstrip("Z").replace("T", " ")
        whole, _, frac = base.partition(".")
        t = time.strptime(whole, "%Y-%m-%d %H:%M:%S")
        stamp = time.mktime(t) if not text.endswith("Z") else _utc(t)
        return stamp + (float("0." + frac) if frac else 0.0)
    year = time.localtime().tm_year  # the old format has no year: this one
    return time.mktime(time.strptime(f"{year}/{text}", "%Y/%m/%d %H:%M:%S"))


def _utc(t: time.struct_time) -> float:
    return float(calendar.timegm(t))


def parse_events(text: str, source: str = "log") -> Iterator[Event]:
    """The complete events of a log's text, in order."""
    for event, _end in _events(text, source):
        yield event


def _events(text: str, source: str) -> Iterator[tuple[Event, int]]:
    """(event, offset just past its closing `...` line) for each complete event."""
    pos = 0
    current: Event | None = None
    while True:
        nl = text.find("\n", pos)
        if nl < 0:
            return  # a line still being written
        line = text[pos:nl].rstrip("\r")
        pos = nl + 1
        if line == "...":
            if current is not None:
                yield current, pos
            current = None
            continue
        if current is None:
            if not line.strip():
                continue
            current = _header(line, source)
        else:
            current.body.append(line)


def _header(line: str, source: str) -> Event:
    m = _HEAD.match(line)
    if m is None:
        if line.lstrip().startswith("<"):
            raise EventLogError(f"{source}: an XML event log, which this tool does not read")
        raise EventLogError(f"{source}: not a job event log line: {line[:80]!r}")
    num, cluster, proc, sub, when, text = m.groups()
    return Event(int(num), int(cluster), int(proc), int(sub), _when(when), text, head=line)


class Tail:
    """A log read as it grows: each call hands out the events completed since the last."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def read(self) -> list[Event]:
        """New complete events; a missing file has none yet. Raises OSError when the
        file exists but cannot be read, EventLogError when it is not an event log."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        # surrogateescape: any byte reads, and the text re-encodes to the same bytes.
        text = data.decode("utf-8", "surrogateescape")
        out = []
        consumed = 0
        for event, end in _events(text, str(self.path)):
            out.append(event)
            consumed = end
        self.offset += len(text[:consumed].encode("utf-8", "surrogateescape"))
        return out
