"""Jobs as a job event log (user log) tells of them, for `condor_q -userlog FILE`.

Like HTCondor's, the ads are partial: what the events say (ClusterId, ProcId, JobStatus,
QDate from the submit event, EnteredCurrentStatus, JobCurrentStartDate, RemoteHost,
CompletionDate, ExitCode or ExitSignal, HoldReason and its codes, RemoveReason), and a job
that has left the queue (terminated or aborted) is shown in its last state.
"""

from __future__ import annotations

import re
from pathlib import Path

from condorx.classad import ClassAd
from condorx.language import eventlog
from condorx.language.attrs import JobStatus

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


def read_jobs(path: Path) -> list[ClassAd]:
    """One ad per job the log names, in job id order."""
    jobs: dict[tuple[int, int], ClassAd] = {}
    for ev in eventlog.parse_events(path.read_text(errors="replace"), str(path)):
        key = (ev.cluster, ev.proc)
        ad = jobs.get(key)
        if ad is None:
            ad = jobs[key] = ClassAd({"ClusterId": key[0], "ProcId": key[1]})
        code, stamp = f"{ev.number:03d}", int(ev.time)
        if code == "000":
            ad["QDate"] = stamp
        if code in _STATUS:
            ad["JobStatus"] = int(_STATUS[code])
            ad["EnteredCurrentStatus"] = stamp
        if code == "001":
            ad["JobCurrentStartDate"] = stamp
            if ev.host():
                ad["RemoteHost"] = ev.host()
        if code in ("005", "009"):
            ad["CompletionDate"] = stamp
        _body(code, ad, [b.strip() for b in ev.body])
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
