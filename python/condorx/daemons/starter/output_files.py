"""Which of a finished job's files go home, named as they land there, as HTCondor's
file transfer names them (transfer_output_files):

- a file travels under its base name (`out/a.txt` lands as `a.txt`), or under its
  path when the job has PreserveRelativePaths;
- a directory travels whole, under its base name (`results` lands as `results/...`);
- a directory written with a trailing slash (`results/`) sends what is in it, not
  itself;
- without TransferOutput, every file the job made in the top of its scratch directory.

A name ending in `/` is a directory (sent even when empty). Nothing is followed out of
the scratch directory: no link is sent, and no listed path may climb above it.
"""

from __future__ import annotations

import os
from pathlib import Path

from condorx.host.plainfile import read_plain


def collect(
    scratch: Path, listed: str | None, preserve: bool, inputs: set[str]
) -> dict[str, bytes]:
    """The files to send home (name as it lands, relative to the job's Iwd: bytes)."""
    out: dict[str, bytes] = {}
    if not listed:
        for p in sorted(scratch.iterdir()):
            if p.name not in inputs:
                _file(p, p.name, out)
        return out
    for entry in (e.strip() for e in listed.split(",")):
        if entry:
            _entry(scratch, entry, preserve, out)
    return out


def missing(scratch: Path, listed: str | None) -> Path | None:
    """The first listed output the job did not make (HTCondor holds such a job: its
    output transfer failed); a path out of the scratch directory is never looked for."""
    for entry in (e.strip() for e in (listed or "").split(",")):
        relative = _inside(entry) if entry else None
        if relative is None:
            continue
        path = scratch / relative
        if not path.is_symlink() and not path.exists():
            return path
    return None


def _inside(entry: str) -> str | None:
    """A listed entry's path within the scratch directory; None for one that is absolute
    or climbs above it (an output is the job's own file, in its scratch directory)."""
    relative = os.path.normpath(entry.rstrip("/") or ".")
    if os.path.isabs(relative) or relative.split(os.sep)[0] == "..":
        return None
    return relative


def _entry(scratch: Path, entry: str, preserve: bool, out: dict[str, bytes]) -> None:
    contents = entry.endswith("/")
    relative = _inside(entry)
    if relative is None:
        return
    path = scratch / relative
    if path.is_symlink():
        return
    if path.is_dir():
        if relative == "." and not contents:
            return
        base = "" if contents else (relative if preserve else path.name) + "/"
        if base:
            out[base] = b""
        _tree(path, base, out)
        return
    _file(path, relative if preserve else path.name, out)


def _tree(top: Path, base: str, out: dict[str, bytes]) -> None:
    for here, dirs, files in os.walk(top, followlinks=False):
        rel = os.path.relpath(here, top)
        prefix = base if rel == "." else f"{base}{rel}/"
        for name in sorted(dirs):
            if not (Path(here) / name).is_symlink():
                out[f"{prefix}{name}/"] = b""
        for name in sorted(files):
            _file(Path(here) / name, prefix + name, out)


def _file(path: Path, name: str, out: dict[str, bytes]) -> None:
    data = read_plain(path)  # a regular file, never a link
    if data is not None:
        out[name] = data
