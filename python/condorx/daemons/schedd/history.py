"""The history file: finished jobs' ads, appended as they leave the queue.

Each ad is written in old ClassAd syntax followed by a banner line that starts with `***`,
as HTCondor's history file is, so `condor_history` can read it from the end (newest
first) without parsing the whole file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from condorx.classad import ClassAd, parseAds


def append(path: Path, ads: Iterable[ClassAd]) -> None:
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
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, "".join(chunks).encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def read_newest_first(path: Path, block: int = 1 << 20) -> Iterator[ClassAd]:
    """The ads of a history file, newest first: the file is read backwards in blocks."""
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


def _lines_backwards(path: Path, block: int) -> Iterator[bytes]:
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
