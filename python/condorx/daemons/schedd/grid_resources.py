"""The grid resources this schedd has submitted to, kept on disk.

A gridmanager pass visits every resource its queue names, and also every resource listed
here, until no job of ours remains in that remote queue. So a remote job whose local job
is gone is removed even when no local job names its resource any more: a job removed
while its submit was in flight, or a schedd killed between a removal's commit and the
remote removal. A resource is written here (durably) before the first submit to it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

from condorx.daemons.schedd.remote import Resource

log = logging.getLogger("condorx.gridmanager")


class KnownResources:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._known = self._load()

    def __iter__(self) -> Iterator[Resource]:
        return iter(sorted(self._known, key=str))

    def __contains__(self, resource: object) -> bool:
        return resource in self._known

    def add(self, resource: Resource) -> None:
        """Remember `resource`; on disk when this returns (blocking: call from a thread)."""
        if resource not in self._known:
            self._save(self._known | {resource})

    def discard(self, resource: Resource) -> None:
        if resource in self._known:
            self._save(self._known - {resource})

    def _load(self) -> set[Resource]:
        try:
            lines = self.path.read_text().splitlines()
        except FileNotFoundError:
            return set()
        except OSError as e:
            log.warning("cannot read %s: %s", self.path, e.strerror)
            return set()
        found = {Resource.parse(line) for line in lines}
        return {r for r in found if r is not None}

    def _save(self, known: set[Resource]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w") as f:
            f.write("".join(f"{r}\n" for r in sorted(known, key=str)))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        dir_fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        self._known = known
