"""A job's files on the submit side, staged with its owner's rights (the schedd may be
root): its inputs read for the execute machine, and its output written where its ad says
(a sandbox's output coming home from the execute machine or from a remote pool alike)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from condorx.classad import ClassAd
from condorx.daemons.starter.sandbox import STDERR, STDOUT
from condorx.host import accounts
from condorx.transport import wire

log = logging.getLogger("condorx.shadow")


def inputs(ad: ClassAd) -> dict[str, bytes]:
    """The job's input files, read with its owner's rights (this schedd may be root)."""
    try:
        with accounts.as_account(accounts.of_owner(ad.get("Owner"))):
            return _read_inputs(ad)
    except accounts.AccountError as e:
        raise wire.WireError(f"cannot read the input files: {e}") from None


def _read_inputs(ad: ClassAd) -> dict[str, bytes]:
    iwd = Path(str(ad.get("Iwd") or "/"))
    names: list[str] = []
    if ad.get("TransferExecutable", True) is not False:
        names.append(str(ad.get("Cmd")))
    for attr in ("In", "X509UserProxy"):  # the proxy travels with the job, as in HTCondor
        path = ad.get(attr)
        if isinstance(path, str) and path not in ("", "/dev/null"):
            names.append(path)
    extra = ad.get("TransferInput")
    if isinstance(extra, str):
        names += [n.strip() for n in extra.split(",") if n.strip()]
    files = {}
    for name in names:
        path = Path(name) if os.path.isabs(name) else iwd / name
        try:
            files[path.name] = path.read_bytes()
        except OSError as e:
            raise wire.WireError(f"cannot read input file {path}: {e.strerror}") from None
    return files


@dataclass(frozen=True)
class OutputFailure:
    """Why some of a job's output could not be written: the job is held for it (code 12,
    as HTCondor holds a job whose output it cannot store), never completed without it."""

    reason: str
    errno: int


def write_outputs(ad: ClassAd, files: dict[str, bytes]) -> OutputFailure | None:
    """Write the job's output where its ad says, with its owner's rights; every file is
    tried, and the first failure is returned."""
    try:
        with accounts.as_account(accounts.of_owner(ad.get("Owner"))):
            return _write_outputs(ad, files)
    except accounts.AccountError as e:
        log.warning("cannot write the output of %s: %s", ad.get("GlobalJobId"), e)
        return OutputFailure(f"Cannot write the job's output: {e}", 0)


def _write_outputs(ad: ClassAd, files: dict[str, bytes]) -> OutputFailure | None:
    iwd = Path(str(ad.get("Iwd") or "/"))
    failed: OutputFailure | None = None
    for name, data in files.items():
        if name == STDOUT:
            target = ad.get("Out")
        elif name == STDERR:
            target = ad.get("Err")
        else:
            target = str(iwd / os.path.basename(name))
        if not isinstance(target, str) or target in ("", "/dev/null"):
            continue
        target = str(iwd / target)  # a relative Out or Err is under the job's Iwd
        where = Path(target)
        step = f"Cannot make directory {where.parent} for output file {target}"
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            step = f"Cannot write output file {target}"
            where.write_bytes(data)
        except OSError as e:
            log.warning("%s: %s", step, e.strerror)
            failed = failed or OutputFailure(f"{step}: {e.strerror}", e.errno or 0)
    return failed
