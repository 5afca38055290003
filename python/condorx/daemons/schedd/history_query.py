"""The schedd's answer to a history query (`protocol.schedd.History`): its history
files read newest first, each ad judged by the query's constraint, until the limit or
the `since` job. The reading happens in a worker thread, a block at a time: a history
may be hundreds of megabytes, and the schedd keeps serving meanwhile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import trio

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.core import query
from condorx.errors import Refusal, Refused
from condorx.language.history import read_newest_first
from condorx.transport import wire
from condorx.transport.peer import Peer
from condorx.transport.protocol.message import Count
from condorx.transport.protocol.schedd.query import History

CHUNK = 1000


def _expr(text: Any, what: str) -> ExprTree | None:
    if text is None or text == "" or text is True:
        return None
    try:
        return ExprTree(str(text))
    except ValueError as e:
        raise Refused(Refusal.BAD_REQUEST, f"history: {what}: {e}") from None


def _since(text: str | None) -> ExprTree | None:
    """`since` as an expression: a job id `C.P` is that job."""
    if text is None or not text.strip():
        return None
    cluster, _, proc = text.strip().partition(".")
    if cluster.isdigit() and (not proc or proc.isdigit()):
        job = f"ClusterId == {cluster}"
        return ExprTree(f"{job} && ProcId == {proc}" if proc else job)
    return _expr(text, "since")


def _chosen(path: Path, req: History) -> Iterator[list[ClassAd]]:
    """The ads the query chooses, in chunks."""
    constraint, since = _expr(req.constraint, "constraint"), _since(req.since)
    limit = req.limit if req.limit is not None and req.limit >= 0 else None
    chunk: list[ClassAd] = []
    taken = 0
    for ad in read_newest_first(path):
        if since is not None and since.eval(ad) is True:
            break
        if constraint is not None and constraint.eval(ad) is not True:
            continue
        chunk.append(ad)
        taken += 1
        if len(chunk) >= CHUNK:
            yield chunk
            chunk = []
        if limit is not None and taken >= limit:
            break
    if chunk:
        yield chunk


class HistoryQueries:
    def __init__(self, path: Path) -> None:
        self.path = path

    async def history(self, peer: Peer, req: History, ch: wire.Channel) -> Count:
        chunks = _chosen(self.path, req)
        sent = 0
        while True:
            chunk = await trio.to_thread.run_sync(next, chunks, None)
            if chunk is None:
                return Count(sent)
            if req.cedar is not None:
                rows: list[Any] = query.cedar_rows(chunk, req)
            else:
                rows = [ad.printOld() for ad in chunk]
            await ch.send({"more": rows})
            sent += len(chunk)
