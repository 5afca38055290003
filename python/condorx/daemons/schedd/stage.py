"""Jobs whose files come after them (HTCondor's remote submission: `Schedd.submit(spool=
True)`, then `Schedd.spool()`, later `Schedd.retrieve()`).

Such a job is queued held (HoldReasonCode 16, "Spooling input data files") and its ad is
rewritten as HTCondor's schedd rewrites it: it runs from its spool directory, so its Iwd
becomes that directory and the files it names become plain names, the submitter's own
paths kept as SUBMIT_<attribute> (a retrieving client puts the output back with them).
Its input files, once they arrive, are written there and the job released. Its output is
taken back from there: StageOutStart when a retrieval begins, StageOutFinish when it is
done, which lets a job kept for it (LeaveJobInQueue) leave the queue.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from condorx.daemons.schedd import spool, transitions
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.store import Key, job_id
from condorx.errors import Refusal, Refused
from condorx.language.attrs import JobStatus

SPOOLING_INPUT = 16  # HoldReasonCode: the job waits for its input files
SPOOLING_REASON = "Spooling input data files"
RELEASED = "Data files spooled"

# What is named by a path that becomes a plain name in the spool, and when it is sent.
_NAMED = ("Cmd", "In", "UserLog", "X509UserProxy")


def rewrite(view: Mapping[str, Any], directory: Path) -> dict[str, Any]:
    """The attributes a spooled job's proc gets (from `view`, its whole ad as sent)."""
    out: dict[str, Any] = {"SUBMIT_Iwd": view.get("Iwd"), "Iwd": str(directory)}
    inputs: list[str] = []
    for name in _NAMED:
        value = view.get(name)
        if not isinstance(value, str) or not value or value == "/dev/null":
            continue
        if name == "Cmd" and view.get("TransferExecutable") is False:
            continue
        if name == "In" and view.get("TransferIn") is False:
            continue
        leaf = os.path.basename(value)
        if leaf != value:
            out[f"SUBMIT_{name}"] = value
            out[name] = leaf
        if name != "UserLog":
            inputs.append(leaf)
    listed = view.get("TransferInput")
    if isinstance(listed, str) and listed.strip():
        names = [n.strip() for n in listed.split(",") if n.strip()]
        leaves = [n if "://" in n else os.path.basename(n) for n in names]
        if leaves != names:
            out["SUBMIT_TransferInput"] = listed
            out["TransferInput"] = ",".join(leaves)
        inputs += [n for n in leaves if "://" not in n]
    remaps = view.get("TransferOutputRemaps")
    if isinstance(remaps, str) and remaps.strip():
        entries = [e for e in remaps.split(";") if e.strip()]
        local = [e for e in entries if "://" not in e.partition("=")[2]]
        urls = [e for e in entries if e not in local]
        out["SUBMIT_TransferOutputRemaps"] = ";".join(local)
        out["TransferOutputRemaps"] = ";".join(urls) if urls else None
    out[spool.MARKER] = ",".join(sorted(set(inputs)))
    out["ShouldTransferFiles"] = "YES"
    return out


def check_stage_in(txn: Transaction, key: Key) -> None:
    """Whether a job may take its input files now: held for them, none taken yet."""
    ad = txn.job(key)
    job = job_id(key)
    if ad is None:
        raise Refused(Refusal.NOT_FOUND, f"job {job} not found")
    if "StageInFinish" in ad:
        raise Refused(Refusal.BAD_STATUS, f"job {job} has its input files already")
    if JobStatus.of(ad) != JobStatus.HELD or ad.get("HoldReasonCode") != SPOOLING_INPUT:
        raise Refused(Refusal.BAD_STATUS, f"job {job} is not waiting for its input files")


def staged_in(txn: Transaction, key: Key, now: int) -> None:
    """The job's input files are in its spool directory: it may run."""
    check_stage_in(txn, key)
    txn.set_attr(key, "StageInFinish", now - 1)  # files written in this second are its
    transitions.release(txn, key, RELEASED, now)


def stage_out(txn: Transaction, key: Key, now: int, done: bool) -> None:
    """A retrieval of the job's output begins (StageOutStart, for a finished job) or is
    done (StageOutFinish): a job kept in the queue for it may then leave."""
    ad = txn.job(key)
    if ad is None:
        return
    if not done:
        if JobStatus.of(ad) in (JobStatus.COMPLETED, JobStatus.REMOVED):
            txn.set_attr(key, "StageOutStart", now)
        return
    if "StageOutStart" in ad:
        txn.set_attr(key, "StageOutFinish", now)
        transitions.let_go(txn, key, now)
