"""What jobs leaving the queue take with them: their spool directories, removed once the
commit is made, and a completed sandboxed routed copy's output, written into its
original's files before the commit that makes either job done is durable (the original
is never seen done without its output)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from condorx.classad import ClassAd
from condorx.daemons.schedd import spool
from condorx.daemons.schedd.queue import EventKind, JobQueue, Transaction
from condorx.daemons.schedd.staging import write_outputs
from condorx.daemons.schedd.store import Key, parse_job_id
from condorx.language.attrs import JobStatus


@dataclass
class Departing:
    """One commit's leaving jobs that have spool directories."""

    spool_root: Path
    # Each leaving job, its spool directory, and the original ad its output goes to.
    jobs: list[tuple[Key, ClassAd, Path, ClassAd | None]] = field(default_factory=list)

    def hand_over(self) -> None:
        """Write each completed sandboxed copy's output into its original's files (in
        the commit's worker thread, before the queue is written)."""
        for key, ad, _, home in self.jobs:
            if home is not None:
                write_outputs(home, spool.outputs(self.spool_root, key, ad))

    @property
    def directories(self) -> list[Path]:
        """The spool directories to remove once the commit is made."""
        return [directory for _, _, directory, _ in self.jobs]


def departing(txn: Transaction, queue: JobQueue, spool_root: Path) -> Departing:
    """The jobs leaving in `txn` that have spool directories, each with the ad of the
    original its output goes to (a completed sandboxed routed copy's) or None."""
    leaving = {ev.key: ev.info["ad"] for ev in txn.events if ev.kind is EventKind.LEAVE}
    found = Departing(spool_root)
    for key, ad in leaving.items():
        directory = spool.spooled_dir(spool_root, key, ad)
        if directory is None:
            continue
        home = None
        original = parse_job_id(ad.get("RoutedFromJobId"))
        if original is not None and ad.get("JobStatus") == JobStatus.COMPLETED:
            home = leaving.get(original) or queue.get(original)
        found.jobs.append((key, ad, directory, home))
    return found
