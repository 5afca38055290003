"""Jobs as a job event log (user log) tells of them, for `condor_q -userlog FILE`.

Like HTCondor's, the ads are partial: what the events say (ClusterId, ProcId, JobStatus,
QDate from the submit event, EnteredCurrentStatus, JobCurrentStartDate, RemoteHost,
CompletionDate, ExitCode or ExitSignal, HoldReason and its codes, RemoveReason), and a job
that has left the queue (terminated or aborted) is shown in its last state.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from condorx.attrs import JobStatus
from condorx.classad import ClassAd

_HEAD = re.compile(
    r"^(\d{3}) \((\d+)\.(\d+)\.\d+\) (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}|\d{2}/\d{2} "
    r"\d{2}:\d{2}:\d{2}) (.*)$"
)
_STATUS = {
    "000": JobStatus.IDLE,
    "001": JobStatus.RUNNING,
    "004": JobStatus.IDLE,  # evicted
    "005": JobStatus.COMPLETED,
    "007": JobStatus.IDLE,  # shadow exception
    "009": JobStatus.REMOVED,
    "010": JobStatus.SUSPENDED,
    "011": JobStatus.RUNNING,
    "012": JobStatus.HELD,
    "013": JobStatus.IDLE,
}


def _when(text: str) -> int:
    fmt = "%Y-%m-%d %H:%M:%S" if "-" in text else "%m/%d %H:%M:%S"
    t = time.strptime(text, fmt)
    if "-" not in text:  # the old format has no year: this one
        t = time.strptime(f"{time.localtime().tm_year}/{text}", "%Y/%m/%d %H:%M:%S")
    return int(time.mktime(t))


def read_jobs(path: Path) -> list[ClassAd]:
    """One ad per job the log names, in job id order."""
    jobs: dict[tuple[int, int], ClassAd] = {}
    event: tuple[str, ClassAd] | None = None
    body: list[str] = []
    for line in path.read_text(errors="replace").splitlines():
        if line == "...":
            if event is not None:
                _body(event[0], event[1], body)
            event, body = None, []
            continue
        m = _HEAD.match(line)
        if m is None:
            body.append(line.strip())
            continue
        code, cluster, proc, when, text = m.groups()
        key = (int(cluster), int(proc))
        ad = jobs.get(key)
        if ad is None:
            ad = jobs[key] = ClassAd({"ClusterId": key[0], "ProcId": key[1]})
        stamp = _when(when)
        if code == "000":
            ad["QDate"] = stamp
        if code in _STATUS:
            ad["JobStatus"] = int(_STATUS[code])
            ad["EnteredCurrentStatus"] = stamp
        if code == "001":
            ad["JobCurrentStartDate"] = stamp
            host = text.rpartition(": ")[2]
            if host:
                ad["RemoteHost"] = host
        if code in ("005", "009"):
            ad["CompletionDate"] = stamp
        event, body = (code, ad), []
    return [jobs[k] for k in sorted(jobs)]


def _body(code: str, ad: ClassAd, body: list[str]) -> None:
    lines = [b for b in body if b]
    if code == "005":
        for b in lines:
            m = re.search(r"return value (-?\d+)", b)
            if m:
                ad["ExitCode"] = int(m.group(1))
                ad["ExitBySignal"] = False
            m = re.search(r"\(signal (\d+)\)", b)
            if m:
                ad["ExitSignal"] = int(m.group(1))
                ad["ExitBySignal"] = True
    elif code == "012" and lines:
        ad["HoldReason"] = lines[0]
        m = re.search(r"Code (\d+) Subcode (\d+)", " ".join(lines[1:]))
        if m:
            ad["HoldReasonCode"] = int(m.group(1))
            ad["HoldReasonSubCode"] = int(m.group(2))
    elif code == "009" and lines:
        ad["RemoveReason"] = lines[0]
