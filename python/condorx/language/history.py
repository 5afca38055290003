"""The history file: finished jobs' ads, appended as they leave the queue.

Each ad is written in old ClassAd syntax followed by a banner line that starts with `***`,
as HTCondor's history file is, so `condor_history` can read it from the end (newest
first) without parsing the whole file.

As in HTCondor, a history file that has grown past MAX_HISTORY_LOG bytes is rotated:
renamed `history.<YYYYMMDDTHHMMSS>`, keeping MAX_HISTORY_ROTATIONS such old files (the
router's seed asks for 20, for condor_router_history); readers go through them all.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from os import PathLike

from condorx.classad import ClassAd, parseAds
from condorx.record import record


@record(frozen=True)
class Rotation:
    """MAX_HISTORY_LOG and MAX_HISTORY_ROTATIONS."""

    max_bytes: int = 20 * 1024 * 1024
    keep: int = 2


def append(
    path: str | PathLike[str], ads: Iterable[ClassAd], rotation: Rotation | None = None
) -> None:
    """Append the ads and fsync: a job out of the queue must be in the history."""
    chunks = []
    for ad in ads:
        banner = (
            f"*** Offset = 0 ClusterId = {ad.get('ClusterId')} ProcId = {ad.get('ProcId')}"
            f' Owner = "{ad.get("Owner", "")}" CompletionDate = {ad.get("CompletionDate", 0)}'
        )
        chunks.append(ad.printOld() + banner + "\n")
    if not chunks:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if rotation is not None:
        _rotate(path, rotation)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, "".join(chunks).encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def _rotate(path: str | PathLike[str], rotation: Rotation) -> None:
    """Set the file aside once it is past its size (the rotated files are the oldest
    jobs), and drop the rotations beyond the number kept."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return
    if rotation.max_bytes <= 0 or size < rotation.max_bytes:
        return
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())  # UTC: no hour comes twice
    # Rotations within one second are numbered after the newest of them, so the order
    # of names stays the order of age even once the oldest are dropped.
    name = os.path.basename(path)
    keys = [_stamp_key(os.path.basename(p)[len(name) + 1 :]) for p in rotated(path)]
    taken = [n for when, n in keys if when == stamp]
    suffix = f"{stamp}.{max(taken) + 1}" if taken else stamp
    target = f"{os.fspath(path)}.{suffix}"
    if rotation.keep <= 0:
        os.unlink(path)
        return
    os.replace(path, target)
    for old in rotated(path)[rotation.keep :]:
        try:
            os.unlink(old)
        except FileNotFoundError:
            pass


def rotated(path: str | PathLike[str]) -> list[str]:
    """The rotated history files beside `path`, newest first."""
    where, name = os.path.split(os.fspath(path))
    prefix = name + "."
    try:
        found = [n for n in os.listdir(where or ".") if n.startswith(prefix)]
    except FileNotFoundError:
        return []
    found.sort(key=lambda n: _stamp_key(n[len(prefix) :]), reverse=True)
    return [os.path.join(where, n) for n in found]


def _stamp_key(suffix: str) -> tuple[str, int]:
    stamp, _, n = suffix.partition(".")
    return stamp, int(n) if n.isdigit() else 0


def read_newest_first(path: str | PathLike[str], block: int = 1 << 20) -> Iterator[ClassAd]:
    """The ads of the history, newest first: the current file, then the rotated ones,
    each read backwards in blocks."""
    for each in [path, *rotated(path)]:
        yield from _read_one(each, block)


def _read_one(path: str | PathLike[str], block: int) -> Iterator[ClassAd]:
    record: list[bytes] = []
    for line in _lines_backwards(path, block):
        if line.startswith(b"***"):
            ad = _parse(record)
            record = []
            if ad is not None:
                yield ad
        elif line:
            record.append(line)
    ad = _parse(record)
    if ad is not None:
        yield ad


def _lines_backwards(path: str | PathLike[str], block: int) -> Iterator[bytes]:
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    with f:
        pos = f.seek(0, os.SEEK_END)
        rest = b""
        while pos > 0:
            start = max(0, pos - block)
            f.seek(start)
            data = f.read(pos - start) + rest
            pos = start
            lines = data.split(b"\n")
            rest = lines.pop(0)  # may continue in the block before
            yield from reversed(lines)
        yield rest


def _parse(record_reversed: list[bytes]) -> ClassAd | None:
    if not record_reversed:
        return None
    text = b"\n".join(reversed(record_reversed)).decode("utf-8", "replace")
    ads = list(parseAds(text))
    return ads[0] if ads else None
