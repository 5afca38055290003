"""A job's files on the submit side, staged with its owner's rights (the schedd may be
root): its inputs read for the execute machine, and its output written where its ad says
(a sandbox's output coming home from the execute machine or from a remote pool alike)."""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from condorx.classad import ClassAd
from condorx.daemons.schedd import remaps
from condorx.daemons.starter.sandbox import STDERR, STDOUT
from condorx.host import accounts
from condorx.transport import wire

log = logging.getLogger("condorx.shadow")


class InputError(wire.WireError):
    """An input file that cannot be read: the job is held for it (code 13, subcode its
    errno, as HTCondor holds it)."""

    def __init__(self, message: str, errno: int = 0) -> None:
        super().__init__(message)
        self.errno = errno


def transfer_failure(what: str, at_execute: bool, slot: str, details: str) -> str:
    """HTCondor's hold reason for a failed transfer of a job's `what` ("input" or
    "output") files, as its shadow words it: where it failed, and which way the files
    were going."""
    ap = f"access point {socket.gethostname().split('.')[0]}"
    ep = f"execution point {slot}" if slot else "the execution point"
    if at_execute:
        way = "receiving files from" if what == "input" else "sending files to"
        where = f"{ep} while {way} {ap}"
    else:
        way = "receiving files from" if what == "output" else "sending files to"
        where = f"{ap} while {way} {ep}"
    return f"Transfer {what} files failure at {where}. Details: {details}"


def inputs(ad: ClassAd) -> dict[str, bytes]:
    """The job's input files, read with its owner's rights (this schedd may be root)."""
    try:
        with accounts.as_account(accounts.of_owner(ad.get("Owner"))):
            return _read_inputs(ad)
    except accounts.AccountError as e:
        raise InputError(f"cannot read the input files: {e}") from None


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
            why = f"reading from file {path}: (errno {e.errno}) {e.strerror}"
            raise InputError(why, e.errno or 0) from None
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
    rules = remaps.parse(ad.get("TransferOutputRemaps"))
    failed: OutputFailure | None = None
    for name, data in files.items():
        target = _target(ad, name, rules)
        if target is None:
            continue
        target = str(iwd / target)  # a relative name lands under the job's Iwd
        where = Path(target)
        is_dir = name.endswith("/")
        step = f"Cannot make directory {where if is_dir else where.parent} for output file {target}"
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            if is_dir:
                where.mkdir(exist_ok=True)
                continue
            step = f"Cannot write output file {target}"
            where.write_bytes(data)
        except OSError as e:
            log.warning("%s: %s", step, e.strerror)
            failed = failed or OutputFailure(f"{step}: {e.strerror}", e.errno or 0)
    return failed


def _target(ad: ClassAd, name: str, rules: list[tuple[str, str]]) -> str | None:
    """Where one file the job sent lands (None: nowhere): its Out or Err, or its name
    (relative to the Iwd, never above it) as TransferOutputRemaps maps it."""
    if name == STDOUT:
        target = ad.get("Out")
        return target if isinstance(target, str) and target not in ("", "/dev/null") else None
    if name == STDERR:
        target = ad.get("Err")
        return target if isinstance(target, str) and target not in ("", "/dev/null") else None
    relative = os.path.normpath(name.rstrip("/"))
    if os.path.isabs(relative) or relative in (".", "..") or relative.startswith("../"):
        log.warning("an output named %r would land outside the job's Iwd: not written", name)
        return None
    mapped = remaps.find(rules, relative)
    if mapped is not None and "://" in mapped:
        return None  # a URL's upload is the starter's (or the transfer plugin's) to make
    return mapped if mapped is not None else relative
