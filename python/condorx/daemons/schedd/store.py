"""The job queue on disk: an SQLite database in WAL mode, one row per ad.

Why SQLite rather than a hand-written journal: it is a real, well-tested embedded database
whose commit is atomic and, with `synchronous=FULL`, durable once `COMMIT` returns (the WAL
is fsynced), so `kill -9` at any instant leaves either the whole transaction or none of it.
WAL mode lets a commit cost one sequential append, and SQLite checkpoints the log into the
main file by itself, which is the compaction a journal would need code for.

Rows: `(cluster, proc, ad)`, where proc -1 holds the cluster ad that the cluster's procs are
chained to and `ad` is the msgpack wire map of the attributes the row's ad sets itself.
`meta` holds counters such as the next cluster id.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from condorx.classad import ClassAd
from condorx.transport import wire

CLUSTER_AD = -1
Key = tuple[int, int]


def job_id(key: Key) -> str:
    """A job's id as HTCondor writes it: `cluster.proc`."""
    return f"{key[0]}.{key[1]}"


def parse_job_id(text: Any, whole_cluster: bool = False) -> Key | None:
    """`5.3` as (5, 3); with `whole_cluster`, `5` (a cluster) as (5, -1) too; None for
    anything else."""
    cluster, _, proc = str(text).partition(".")
    if not cluster.isdigit() or not (proc.isdigit() or (whole_cluster and not proc)):
        return None
    return int(cluster), int(proc) if proc else -1


def _private(path: Path) -> None:
    """The queue readable by the schedd's account alone, as HTCondor keeps its
    job_queue.log (0600): it holds every user's jobs, their environments and arguments.
    SQLite gives its -wal and -shm files the database's own mode."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)  # a queue an older schedd made readable
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm"):
        try:
            os.chmod(f"{path}{suffix}", 0o600)
        except FileNotFoundError:
            pass


_LOAD_BATCH = 8192  # rows read into ads per call into the core at start-up


class Store:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        _private(path)
        # The schedd calls the store from one worker thread at a time (under its lock).
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS ads (cluster INTEGER NOT NULL, proc INTEGER NOT NULL,"
            " ad BLOB NOT NULL, PRIMARY KEY (cluster, proc)) WITHOUT ROWID"
        )
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)"
        )

    def close(self) -> None:
        self.db.close()

    def meta(self, key: str, default: int) -> int:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else int(row[0])

    def rows(self) -> Iterator[tuple[int, int, ClassAd]]:
        """Every stored ad, cluster ads before their procs, read a batch of rows at a
        time in one call into the core."""
        cur = self.db.execute("SELECT cluster, proc, ad FROM ads ORDER BY cluster, proc")
        while batch := cur.fetchmany(_LOAD_BATCH):

            def name_of(i: int, batch: list[Any] = batch) -> str:
                return f"job queue row {batch[i][0]}.{batch[i][1]}"

            ads = wire.ads_from_rows([blob for _, _, blob in batch], name_of)
            for (cluster, proc, _), ad in zip(batch, ads, strict=True):
                yield cluster, proc, ad

    def commit(
        self,
        put: Iterable[tuple[Key, bytes]],
        delete: Iterable[Key],
        meta: dict[str, int],
    ) -> None:
        """Write one transaction durably: when this returns, it survives a crash."""
        cur = self.db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            cur.executemany("DELETE FROM ads WHERE cluster = ? AND proc = ?", list(delete))
            cur.executemany(
                "INSERT OR REPLACE INTO ads (cluster, proc, ad) VALUES (?, ?, ?)",
                ((c, p, blob) for (c, p), blob in put),
            )
            cur.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", meta.items())
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise


def ad_to_blob(ad: ClassAd) -> bytes:
    """The attributes the ad sets itself (not its cluster ad's), packed."""
    own = ad.own_keys()
    return wire.dumps(wire.ad_to_wire(ad, own))
