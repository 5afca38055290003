"""Job spool directories: a job's input files held by the schedd itself, for jobs whose
submitter's files are not reachable from here (a job handed over by another pool's
schedd, HTCondor's Condor-C) and for sandboxed routed copies (the Job Router manual,
JobShouldBeSandboxed).

A spooled job's Iwd is its spool directory, so its shadow sends the inputs from there and
writes the outputs back there; `SpooledInputFiles` names the inputs, so what else is in
the directory once the job is done is its output. The directory goes when the job leaves
the queue.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from condorx.classad import ClassAd
from condorx.daemons.schedd.store import Key
from condorx.daemons.starter.sandbox import STDERR, STDOUT
from condorx.errors import CondorxError
from condorx.host import accounts
from condorx.host.plainfile import read_plain

MARKER = "SpooledInputFiles"


class SpoolError(CondorxError):
    """Spooled files that cannot be accepted (a bad name) or written."""


def job_dir(root: Path, key: Key) -> Path:
    """Where job `key`'s files live: spread over subdirectories, as HTCondor's spool is."""
    cluster, proc = key
    return root / str(cluster % 10_000) / f"cluster{cluster}.proc{proc}"


def check_names(files: Mapping[str, object], where: str) -> None:
    """Spooled names are plain file names: nothing may land outside the job's directory."""
    for name, data in files.items():
        if not isinstance(name, str) or not name or name in (".", "..") or "/" in name:
            raise SpoolError(f"{where}: bad spooled file name {name!r}")
        if "\0" in name:
            raise SpoolError(f"{where}: bad spooled file name {name!r}")
        if not isinstance(data, bytes):
            raise SpoolError(f"{where}: spooled file {name!r} is not bytes")


def check_paths(attrs: Mapping[str, object], files: Mapping[str, bytes], where: str) -> None:
    """A spooled job reads its inputs from its spool only: each file its ad names is one
    of the files sent with it."""
    for attr in ("Cmd", "In", "X509UserProxy", "TransferInput"):
        value = next((v for k, v in attrs.items() if k.lower() == attr.lower()), None)
        if value is None or value in ("", "/dev/null"):
            continue
        names = str(value).split(",") if attr == "TransferInput" else [str(value)]
        for name in (n.strip() for n in names):
            if name and name not in files:
                raise SpoolError(f"{where}: {attr} names {name!r}, which was not spooled")


def write(directory: Path, files: Mapping[str, bytes], owner: str | None = None) -> None:
    """Write the inputs, readable by the job's owner only (a root schedd gives the
    directory to the owner's account, whose rights its shadow then reads and writes
    with; the executable keeps its bits on the execute side, where the starter makes it
    executable)."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    if directory.exists() or directory.is_symlink():
        # Left by a submission that never committed (its cluster id is given again):
        # nothing of it may reach this job's owner.
        remove(directory)
        directory.unlink(missing_ok=True)
    directory.mkdir(mode=0o700)
    for name, data in files.items():
        path = directory / name
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    account = accounts.of_owner(owner)
    if account is not None:
        account.give(directory)


def mark(ad: dict[str, object], directory: Path, files: Mapping[str, bytes]) -> None:
    """The proc attributes of a spooled job: it runs from its spool directory, and its
    files travel to the execute machine (the spool is nobody else's file system)."""
    ad["Iwd"] = str(directory)
    ad[MARKER] = ",".join(sorted(files))
    ad["ShouldTransferFiles"] = "YES"


def spooled_dir(root: Path, key: Key, ad: ClassAd) -> Path | None:
    """The job's spool directory, if it has one (what `remove` may delete)."""
    if MARKER not in ad:
        return None
    directory = job_dir(root, key)
    return directory if str(ad.get("Iwd")) == str(directory) else None


def outputs(root: Path, key: Key, ad: ClassAd) -> dict[str, bytes]:
    """What the job wrote: its stdout and stderr (under the starter's names for them) and
    every other file in its spool directory that was not an input."""
    directory = spooled_dir(root, key, ad)
    if directory is None or not directory.is_dir():
        return {}
    inputs = {n for n in str(ad.get(MARKER) or "").split(",") if n}
    names = {
        _leaf(ad.get("Out")): STDOUT,
        _leaf(ad.get("Err")): STDERR,
    }
    found: dict[str, bytes] = {}
    for entry in sorted(directory.iterdir()):
        if entry.name in inputs and entry.name not in names:
            continue
        data = read_plain(entry)
        if data is not None:
            found[names.get(entry.name, entry.name)] = data
    return found


def output_files(root: Path, key: Key, ad: ClassAd) -> dict[str, bytes]:
    """What the job wrote, by its names in the spool directory (stdout and stderr as the
    job's Out and Err name them there): every file that was not an input."""
    directory = spooled_dir(root, key, ad)
    if directory is None or not directory.is_dir():
        return {}
    inputs = {n for n in str(ad.get(MARKER) or "").split(",") if n}
    keep = {_leaf(ad.get("Out")), _leaf(ad.get("Err"))}
    found: dict[str, bytes] = {}
    for entry in sorted(directory.iterdir()):
        if entry.name in inputs and entry.name not in keep:
            continue
        data = read_plain(entry)
        if data is not None:
            found[entry.name] = data
    return found


def gather(ad: ClassAd, owner: object = None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The job's input files (executable, stdin, X509 proxy, transfer_input_files), read
    from where its ad names them, and the attributes that name them by plain name once
    they are spooled (stdout and stderr too: the job writes them in its spool). Read
    with the job owner's rights."""
    try:
        with accounts.as_account(accounts.of_owner(owner or ad.get("Owner"))):
            return _gather(ad)
    except accounts.AccountError as e:
        raise SpoolError(f"cannot read the input files: {e}") from None


def _gather(ad: ClassAd) -> tuple[dict[str, Any], dict[str, bytes]]:
    iwd = Path(str(ad.get("Iwd") or "/"))
    attrs: dict[str, Any] = {}
    files: dict[str, bytes] = {}
    if ad.get("TransferExecutable", True) is not False:
        attrs["Cmd"] = _read(files, iwd, ad.get("Cmd"), "executable")
    for attr in ("In", "X509UserProxy"):
        if _leaf(ad.get(attr)):
            attrs[attr] = _read(files, iwd, ad.get(attr), attr)
    extra = ad.get("TransferInput")
    if isinstance(extra, str) and extra.strip():
        wanted = [n.strip() for n in extra.split(",") if n.strip()]
        attrs["TransferInput"] = ",".join(_read(files, iwd, n, "TransferInput") for n in wanted)
    for attr in ("Out", "Err"):
        leaf = _leaf(ad.get(attr))
        if leaf:
            attrs[attr] = leaf
    return attrs, files


def _read(files: dict[str, bytes], iwd: Path, name: object, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise SpoolError(f"the job's {what} is not a file name")
    path = Path(name) if os.path.isabs(name) else iwd / name
    leaf = path.name
    if leaf in files:
        raise SpoolError(f"two input files are named {leaf!r}; a spool holds one")
    try:
        files[leaf] = path.read_bytes()
    except OSError as e:
        raise SpoolError(f"cannot read input file {path}: {e.strerror}") from None
    return leaf


def remove(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)


def remove_all(directories: list[Path]) -> None:
    for d in directories:
        remove(d)


# Spool directories are written before their jobs enter the queue (so that a job in the
# queue always has its files), and taken back after the commit for the jobs that did not
# enter it (refused, or the commit failed): both the submit path and the router's path
# follow these two rules.


def write_all(writes: Mapping[Path, tuple[Mapping[str, bytes], str | None]]) -> None:
    """Each directory's files with its owner's rights, or none: a directory that cannot
    be written takes the others back, and the OSError is raised."""
    try:
        for directory, (files, owner) in writes.items():
            write(directory, files, owner)
    except OSError:
        remove_all(list(writes))
        raise


def clean_unqueued(root: Path, keys: Iterable[Key], queued: Callable[[Key], bool]) -> None:
    """The spool directories of jobs that did not enter the queue."""
    remove_all([job_dir(root, k) for k in keys if not queued(k)])


def _leaf(path: object) -> str | None:
    if not isinstance(path, str) or path in ("", "/dev/null"):
        return None
    return os.path.basename(path)
