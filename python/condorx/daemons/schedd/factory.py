"""Job factories (late materialization): clusters whose jobs the schedd makes as their
turn comes, not all at submit. A factory's cluster ad says how many jobs may be in the
queue at once (JobMaterializeLimit, from max_materialize) and how many may wait to run
(JobMaterializeMaxIdle, from max_idle); as jobs leave or start, the next are made.

A factory's jobs come from one of two sources, each in files in the spool written before
the cluster is committed, so a factory survives the schedd's restart:

- `Rows`: every proc's own attributes, as condorx's condor_submit built them;
- `Digest`: HTCondor's submit digest and its item rows, as HTCondor's clients send them.
  The digest leaves out what the cluster ad already says, so a proc is the cluster ad
  plus what the digest makes differently for it than for the first proc.

Jobs are made inside the queue's own transactions (`top_up`, which the ledger runs at the
end of every batch): a job that leaves and the one that takes its place are one commit.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import msgpack

from condorx.classad import ClassAd
from condorx.daemons.schedd import entry
from condorx.daemons.schedd.factory_state import (
    DIGEST_FILE,
    INVALID,
    ITEMS_FILE,
    LIMIT,
    MAX_IDLE,
    NEXT,
    PAUSE_REASON,
    PAUSED,
    REMOVED,
    ROWS_FILE,
    TOTAL,
    is_factory,
    pending,
)
from condorx.daemons.schedd.queue import Transaction
from condorx.daemons.schedd.submission import Submission
from condorx.errors import Refusal, Refused
from condorx.language.attrs import PROTECTED, JobStatus, Universe
from condorx.language.submit.build import Facts
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse
from condorx.language.submit.series import Series
from condorx.transport import wire

log = logging.getLogger("condorx.schedd")

# Jobs made in one transaction at most: a factory of 100,000 with no limit is made over
# many commits, and the queue's other work goes on between them.
BATCH = 500


class Source(Protocol):
    total: int

    def proc(self, proc: int) -> dict[str, Any]:
        """Proc `proc`'s own attributes (a wire map: what differs from the cluster ad)."""
        ...


class Rows:
    """Every proc's own attributes, packed one by one (condorx's condor_submit)."""

    def __init__(self, rows: list[bytes]) -> None:
        self.rows = rows
        self.total = len(rows)

    @classmethod
    def of(cls, procs: list[Any]) -> Rows:
        return cls([wire.dumps(p) for p in procs])

    def proc(self, proc: int) -> dict[str, Any]:
        own = wire.unpack(self.rows[proc])
        if not isinstance(own, dict):
            raise SubmitError(f"proc {proc}: not a map of attributes")
        return own

    def save(self, path: Path) -> None:
        _write(path, msgpack.packb(self.rows, use_bin_type=True))

    @classmethod
    def load(cls, path: Path) -> Rows:
        rows = msgpack.unpackb(path.read_bytes(), raw=False)
        if not isinstance(rows, list) or not all(isinstance(r, bytes) for r in rows):
            raise SubmitError(f"{path}: not a list of packed procs")
        return cls(rows)


_EXECUTABLE = re.compile(r"^\s*executable\s*[=@]", re.IGNORECASE | re.MULTILINE)
_UNIVERSE = re.compile(r"^\s*universe\s*=", re.IGNORECASE | re.MULTILINE)
_FACTORY_REQS = re.compile(r"^\s*FACTORY\.Requirements\s*=", re.IGNORECASE | re.MULTILINE)
_FACTORY_IWD = re.compile(r"^\s*FACTORY\.Iwd\s*=\s*(.*)$", re.IGNORECASE | re.MULTILINE)


class Digest:
    """HTCondor's submit digest and its rows: each proc built from them when wanted."""

    def __init__(self, text: str, rows: list[str] | None, cluster_id: int, cluster: Any) -> None:
        self.text, self.rows = text, rows
        where = f"the submit digest of cluster {cluster_id}"
        self.series = Series(
            parse(text, where, top=_completion(text, cluster)),
            cluster_id,
            _facts(text, cluster),
            environ={},
            rows=rows,
        )
        self.total = self.series.total
        # FACTORY.Requirements: every job takes the cluster's (the digest cannot rebuild it).
        self.keep = {"requirements"} if _FACTORY_REQS.search(text) else set()

    def proc(self, proc: int) -> dict[str, Any]:
        return {
            k: v
            for k, v in self.series.diff(proc).items()
            if k.lower() not in self.keep and k.lower() not in PROTECTED
        }

    @staticmethod
    def items_bytes(rows: list[str]) -> bytes:
        return "".join(r + "\n" for r in rows).encode()


def _completion(text: str, cluster: Any) -> list[str]:
    """What the digest may leave out and the builder needs, read before it: the
    executable and the universe, from the cluster ad (their effect is there already)."""
    head = []
    if not _EXECUTABLE.search(text) and isinstance(cluster.get("Cmd"), str):
        head.append(f"executable = {cluster.get('Cmd')}")
    universe = cluster.get("JobUniverse")
    if not _UNIVERSE.search(text) and isinstance(universe, int):
        try:
            head.append(f"universe = {Universe(universe).name.lower()}")
        except ValueError:
            pass
    return head


def _facts(text: str, cluster: Any) -> Facts:
    m = _FACTORY_IWD.search(text)
    iwd = m.group(1).strip() if m else str(cluster.get("Iwd") or "/")
    return Facts(
        cwd=iwd,
        arch="X86_64",
        opsys="LINUX",
        fs_domain=str(cluster.get("FileSystemDomain") or ""),
        user=str(cluster.get("Owner") or ""),
    )


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def files(spool: Path, cluster: int) -> dict[str, Path]:
    """Where a cluster's factory keeps its rows (beside its jobs' spool directories)."""
    base = spool / str(cluster % 10_000)
    return {
        ROWS_FILE: base / f"condorx_submit.{cluster}.rows",
        DIGEST_FILE: base / f"condor_submit.{cluster}.digest",
        ITEMS_FILE: base / f"condor_submit.{cluster}.items",
    }


def source_of(spec: dict[str, Any], procs: list[Any], cluster: int, cluster_ad: ClassAd) -> Source:
    """A new factory's source: HTCondor's digest and rows, or condorx's procs (checked
    as a submission's are). Raises SubmitError naming what is wrong."""
    digest, items = spec.get("digest"), spec.get("items")
    if digest is None:
        try:
            Submission.decode({}, procs)
        except Refused as e:
            raise SubmitError(str(e)) from None
        return Rows.of(procs)
    if not isinstance(digest, str):
        raise SubmitError("the factory's digest is not text")
    if items is not None and not (
        isinstance(items, list) and all(isinstance(i, str) for i in items)
    ):
        raise SubmitError("the factory's items are not lines of text")
    if procs:
        raise SubmitError("a factory with a digest takes no procs")
    return Digest(digest, items, cluster, cluster_ad)


def load(cluster: int, ad: Any) -> Source:
    """A committed factory's source, from the files its cluster ad names."""
    rows_file = ad.get(ROWS_FILE)
    if isinstance(rows_file, str):
        return Rows.load(Path(rows_file))
    digest_file = ad.get(DIGEST_FILE)
    if not isinstance(digest_file, str):
        raise SubmitError(f"cluster {cluster}: a factory with neither rows nor a digest")
    items_file = ad.get(ITEMS_FILE)
    items = None
    if isinstance(items_file, str):
        items = Path(items_file).read_text().split("\n")[:-1]
    return Digest(Path(digest_file).read_text(), items, cluster, ad)


class Factories:
    """The schedd's job factories, by cluster, and the making of their jobs."""

    def __init__(self, spool: Path, schedd_name: str, uid_domain: str) -> None:
        self.spool = spool
        self.schedd_name, self.uid_domain = schedd_name, uid_domain
        self.sources: dict[int, Source] = {}
        # Factories a top-up left with room (it stopped at BATCH): the next commit goes
        # on with them. `_carry` is the committed one, `_next` the last staged.
        self._carry: set[int] = set()
        self._next: set[int] = set()
        # The job transforms and submit requirements each made job meets (the schedd's
        # intake sets it): (its wire map, its ad, its cluster's ad, its id).
        self.rules: Callable[[dict[str, Any], ClassAd, ClassAd, tuple[int, int]], None] | None
        self.rules = None

    def load_all(self, clusters: dict[int, ClassAd]) -> None:
        """The factories of the queue as it was left (on start)."""
        for cluster, ad in clusters.items():
            if not is_factory(ad) or not pending(ad):
                continue
            try:
                self.sources[cluster] = load(cluster, ad)
            except (OSError, SubmitError, ValueError) as e:
                log.error("cannot load the job factory of cluster %d: %s", cluster, e)

    def resume(self, txn: Transaction) -> None:
        """A change that tops up every factory (the first after a start)."""
        self._carry = set(self.sources)

    def create(self, cluster: int, source: Source) -> dict[str, Any]:
        """Write a new factory's files and keep its source; the attributes its cluster ad
        takes (before the commit that makes the cluster: a factory always has its rows)."""
        paths = files(self.spool, cluster)
        attrs: dict[str, Any] = {TOTAL: source.total}
        try:
            if isinstance(source, Rows):
                source.save(paths[ROWS_FILE])
                attrs[ROWS_FILE] = str(paths[ROWS_FILE])
            elif isinstance(source, Digest):
                _write(paths[DIGEST_FILE], source.text.encode())
                attrs[DIGEST_FILE] = str(paths[DIGEST_FILE])
                if source.rows is not None:
                    _write(paths[ITEMS_FILE], Digest.items_bytes(source.rows))
                    attrs[ITEMS_FILE] = str(paths[ITEMS_FILE])
        except OSError as e:
            self.discard(cluster)
            raise Refused(Refusal.SPOOL, f"cannot keep the job factory's rows: {e}") from None
        self.sources[cluster] = source
        return attrs

    def discard(self, cluster: int) -> None:
        """Forget a factory and remove its files (its cluster is gone, or never came)."""
        self.sources.pop(cluster, None)
        for path in files(self.spool, cluster).values():
            path.unlink(missing_ok=True)

    # -- making jobs, inside a transaction -------------------------------------------------

    def top_up(self, txn: Transaction) -> bool:
        """Make the jobs each factory this transaction touched has room for; True when
        some were left for another commit."""
        made = 0
        touched = sorted(({key[0] for key in txn.staged} | self._carry) & self.sources.keys())
        self._next = set()
        for i, cluster in enumerate(touched):
            made += self._top_up_one(txn, cluster, BATCH - made)
            if made >= BATCH:
                self._next = set(touched[i:])
                break
        return bool(self._next)

    def applied(self, txn: Transaction) -> None:
        """After a commit: go on where its top-up stopped; forget the factories whose
        clusters left the queue, and their files."""
        self._carry = self._next
        for cluster in txn.clusters_gone():
            if cluster in self.sources:
                self.discard(cluster)

    def _top_up_one(self, txn: Transaction, cluster: int, most: int) -> int:
        ad = txn.cluster_ad(cluster)
        if ad is None or not pending(ad) or ad.get(PAUSED) not in (None, 0):
            return 0
        source = self.sources[cluster]
        procs = txn.procs_of(cluster)
        nxt, total = int(ad[NEXT]), min(int(ad[TOTAL]), source.total)
        room = min(total - nxt, most)
        limit = ad.get(LIMIT)
        if isinstance(limit, int) and limit > 0:
            room = min(room, limit - len(procs))
        max_idle = ad.eval(MAX_IDLE) if MAX_IDLE in ad else None
        if isinstance(max_idle, int) and not isinstance(max_idle, bool) and max_idle >= 0:
            room = min(room, max_idle - _not_running(txn, procs, ad))
        if room <= 0:
            return 0
        who = entry.Submitter(str(ad.get("Owner")), self.uid_domain, self.schedd_name)
        now = int(time.time())
        made = 0
        for proc in range(nxt, nxt + room):
            try:
                own = source.proc(proc)
                own["EnteredCurrentStatus"] = now
                job = wire.ad_from_wire(own, f"proc {proc}")
                if self.rules is not None:
                    self.rules(own, job, ad, (cluster, proc))
            except (SubmitError, Refused, ValueError, wire.WireError) as e:
                # A row that cannot make a job stops the factory there, as HTCondor's
                # does (paused as invalid, with the reason): the jobs before it stand.
                txn.set_attr((cluster, -1), PAUSED, INVALID)
                txn.set_attr((cluster, -1), PAUSE_REASON, f"proc {proc}: {e}")
                break
            entry.add_proc(txn, who, (cluster, proc), ad, own, job, now)
            made += 1
        txn.set_attr((cluster, -1), NEXT, nxt + made)
        return made

    def stop(self, txn: Transaction, cluster: int) -> None:
        """No more jobs from this cluster's factory (the cluster was removed)."""
        ad = txn.cluster_ad(cluster)
        if ad is None or not pending(ad):
            return
        txn.set_attr((cluster, -1), PAUSED, REMOVED)
        if not txn.procs_of(cluster):
            txn.delete_cluster(cluster)


def _not_running(txn: Transaction, procs: list[Any], cluster_ad: ClassAd) -> int:
    """Jobs waiting (idle or held): what JobMaterializeMaxIdle counts."""
    default = cluster_ad.get("JobStatus")
    n = 0
    for key in procs:
        job = txn.job(key)
        status = job.get("JobStatus", default) if job is not None else None
        n += status in (JobStatus.IDLE, JobStatus.HELD)
    return n
