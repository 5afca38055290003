"""`condor_q -better-analyze` and `-analyze` over the live pool: the jobs from the schedd,
the slots from the collector, the counting by `condorx.language.analyze` (Rust), and the report in
the shape of HTCondor's (its manual's examples):

    The Requirements expression for job 12.000 is

        (TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64")

    Job 12.000 defines the following attributes:

        RequestMemory = 2048

    The Requirements expression for job 12.000 reduces to these conditions:

             Slots
    Step    Matched  Condition
    -----  --------  ---------
    [0]           0  TARGET.Memory >= RequestMemory
    [1]           4  TARGET.Arch == "X86_64"

    12.000:  Run analysis summary ignoring user priority.  Of 4 machines,
          4 are rejected by your job's requirements
          0 reject your job because of their own requirements
          0 match and are already running your jobs
          0 match but are serving other users
          0 are able to run your job

`-analyze` says first when a job cannot run for a reason of its own (held, removed,
completed, already running) and analyzes the rest as `-better-analyze` does.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from condorx.classad import ClassAd
from condorx.cli import adformat
from condorx.cli import args as a
from condorx.client.collector import CollectorClient
from condorx.client.schedd import ScheddClient
from condorx.language.analyze import analyze as analyze_job
from condorx.language.attrs import JobStatus


async def analyze(client: ScheddClient, constraint: str | None, opts: a.Parsed) -> None:
    jobs = [ad async for chunk in client.query_ads(constraint) for ad in chunk]
    collector = CollectorClient(client.cfg)
    slots = await collector.query_ads("machine", opts.value("mconstraint"))
    better = "better-analyze" in opts.flags
    name = client.cfg.get("SCHEDD_NAME") or client.cfg.get("FULL_HOSTNAME") or "schedd"
    out = [f"\n\n-- Schedd: {name}\n"]
    for job in jobs:
        out.append(report(job, slots, better))
    sys.stdout.write("".join(out))


def _job_id(job: ClassAd) -> str:
    return f"{job.get('ClusterId')}.{int(job.get('ProcId') or 0):03d}"


def report(job: ClassAd, slots: list[ClassAd], better: bool = True) -> str:
    """One job's analysis, as HTCondor's condor_q prints it."""
    jid = _job_id(job)
    status = job.get("JobStatus")
    if not better:
        why = _not_runnable(job, jid, status)
        if why is not None:
            return why
    lines: list[str] = []
    req = job.lookup("Requirements") if "Requirements" in job else None
    if req is not None:
        lines += [f"The Requirements expression for job {jid} is", ""]
        lines += [f"    {adformat.old_text(req)}", ""]
        refs = [r for r in job.internalRefs(req) if r in job and r.lower() != "requirements"]
        if refs:
            lines += [f"Job {jid} defines the following attributes:", ""]
            lines += [f"    {r} = {adformat.old_text(job.lookup(r))}" for r in sorted(refs)]
            lines.append("")
    result = analyze_job(job, slots)
    if result.has_requirements and result.clauses:
        lines += [f"The Requirements expression for job {jid} reduces to these conditions:", ""]
        lines += ["         Slots", "Step    Matched  Condition", "-----  --------  ---------"]
        for i, clause in enumerate(result.clauses):
            lines.append(f"{f'[{i}]':<5}  {clause.true_on:>8}  {clause.text}")
        lines.append("")
    running_mine, serving_others, available = _matching_slots(job, slots)
    lines += [
        f"{jid}:  Run analysis summary ignoring user priority.  Of {result.slots} machines,",
        f"  {result.rejected_by_job:>5} are rejected by your job's requirements",
        f"  {result.rejecting_job:>5} reject your job because of their own requirements",
        f"  {running_mine:>5} match and are already running your jobs",
        f"  {serving_others:>5} match but are serving other users",
        f"  {available:>5} are able to run your job",
    ]
    if result.matching == 0:
        lines += ["", "WARNING:  Be advised:", f"   {result.verdict()}"]
    for missing in result.missing():
        hint = result.suggestions.get(missing)
        lines.append(f"   No slot defines {missing}" + (f"; did you mean {hint}?" if hint else "."))
    return "\n".join(lines) + "\n\n" + _last_matches(job)


def _last_matches(job: ClassAd) -> str:
    """What the negotiators last said of the job, as HTCondor's condor_q tells it
    (appendBasicJobRunAnalysisToBuffer): its last match, and its last rejection with
    the reason (a group's quota, a concurrency limit, priority, no match)."""
    matched, rejected = job.get("LastMatchTime"), job.get("LastRejMatchTime")
    matched = matched if isinstance(matched, int) else 0
    rejected = rejected if isinstance(rejected, int) else 0
    out = ""
    if matched:
        out += f"Last successful match: {time.ctime(matched)}\n"
    elif rejected:
        out += "No successful match recorded.\n"
    if rejected > matched:
        by = job.get("LastRejMatchNegotiator")
        out += f"Last failed match: {time.ctime(rejected)}"
        out += f" from {by}\n" if isinstance(by, str) and by else "\n"
        reason = job.get("LastRejMatchReason")
        if isinstance(reason, str):
            out += f"Reason for last match failure: {reason}\n"
    return out


def _not_runnable(job: ClassAd, jid: str, status: Any) -> str | None:
    """-analyze's first look: a job that is not waiting for a match says why."""
    if status == JobStatus.HELD:
        return f"\n{jid}:  Job is held.\n\nHold reason: {job.get('HoldReason') or ''}\n\n"
    if status == JobStatus.REMOVED:
        return f"\n{jid}:  Job is removed.\n\n"
    if status == JobStatus.COMPLETED:
        return f"\n{jid}:  Job is completed.\n\n"
    if status in (JobStatus.RUNNING, JobStatus.SUSPENDED):
        host = job.get("RemoteHost") or ""
        return f"\n{jid}:  Request is running on {host}\n\n"
    return None


def _matching_slots(job: ClassAd, slots: list[ClassAd]) -> tuple[int, int, int]:
    """Of the slots that match the job both ways: running this user's jobs, serving other
    users, and free to run it."""
    user = job.get("User") or job.get("Owner")
    mine = others = free = 0
    for slot in slots:
        if not job.symmetricMatch(slot):
            continue
        remote = slot.get("RemoteUser") or slot.get("RemoteOwner")
        if slot.get("State") == "Claimed" and remote:
            if remote == user or str(remote).split("@")[0] == job.get("Owner"):
                mine += 1
            else:
                others += 1
        else:
            free += 1
    return mine, others, free
