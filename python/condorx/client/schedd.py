"""Talking to a schedd: submit, query, act on jobs, edit them. Used by the CLIs and daemons.

The local Unix socket is preferred (the kernel vouches for the user); otherwise TCP with a
token: `CONDORX_TOKEN`, a file in SEC_TOKEN_DIRECTORY, or one made from the pool key when
this user can read it (the pool's admin).
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager

from condorx.classad import ClassAd
from condorx.language.config import Config
from condorx.transport import locate, wire
from condorx.transport.connection import Address, Credentials, connect, user_credentials
from condorx.transport.protocol.schedd.query import Autoclusters, QueryJobs

# The other requests are imported by the calls that send them: a tool makes one call, and
# each message type costs its making at import, on every run of the tool.
TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

    from condorx.transport.protocol.schedd.act import Acted
    from condorx.transport.protocol.schedd.submit import Submitted


def addresses(cfg: Config, name: str | None = None) -> list[Address]:
    """Where to reach the schedd: its local socket first, then its advertised address."""
    found = []
    if name is None:
        sock = locate.schedd_socket(cfg)
        if os.path.exists(sock):
            found.append(Address(unix=sock))
    if name:
        found.append(Address.parse(name))
    else:
        try:
            found.append(Address.parse(locate.read(locate.schedd_address_file(cfg))))
        except (OSError, ValueError):
            pass
    return found


def _is_address(text: str) -> bool:
    """An address (`<host:port>`, `host:port`, `unix:...`) rather than a schedd's name."""
    try:
        Address.parse(text)
    except ValueError:
        return False
    return True


class ScheddClient:
    def __init__(
        self, cfg: Config, address: str | None = None, creds: Credentials | None = None
    ) -> None:
        self.cfg = cfg
        self.address = address
        self._creds = creds
        self._holding = False
        self._idle: list[wire.Channel] = []  # held connections not in use
        self._gate: Any = None  # a trio.Semaphore while `held`

    @property
    def creds(self) -> Credentials:
        """What this client proves over TCP, found when first needed: on the schedd's
        local socket a tool needs none, and making a token from the pool key costs it
        the loading of cryptography on every run."""
        if self._creds is None:
            self._creds = user_credentials(self.cfg)
        return self._creds

    @asynccontextmanager
    async def held(self, connections: int = 1) -> AsyncIterator[None]:
        """Within it, calls share up to `connections` connections, each opened at first
        need and kept (one that broke is replaced): a client that makes many calls
        (condor_dagman submitting node after node, several at once) does not connect and
        authenticate for each."""
        import trio  # only a daemon holds connections: a tool need not start trio

        self._holding = True
        self._gate = trio.Semaphore(connections)
        try:
            yield
        finally:
            self._holding = False
            idle, self._idle = self._idle, []
            with trio.CancelScope(shield=True):
                for ch in idle:
                    await ch.aclose()

    @asynccontextmanager
    async def channel(self) -> AsyncIterator[wire.Channel]:
        if not self._holding:
            ch = await self._connect()
            try:
                yield ch
            finally:
                await ch.aclose()
            return
        async with self._gate:
            ch = self._idle.pop() if self._idle else await self._connect()
            try:
                yield ch
            except BaseException:
                # A call that failed or was cancelled part way leaves its conversation
                # in an unknown state: it is closed, and the next call connects anew.
                import trio

                with trio.CancelScope(shield=True):
                    await ch.aclose()
                raise
            self._idle.append(ch)

    async def _connect(self) -> wire.Channel:
        # Found anew at every connection: a daemon's client outlives a schedd that starts
        # after it, or restarts at another address.
        named = self.address if self.address and not _is_address(self.address) else None
        found = await self._by_name(named) if named else addresses(self.cfg, self.address)
        if not found:
            raise wire.WireError("no schedd found: is the pool running? (condorx pool up)")
        last: Exception | None = None
        for addr in found:
            try:
                return await connect(addr, self._creds_for(addr))
            except OSError as e:
                last = e
        raise wire.WireError(f"cannot reach the schedd at {found[-1]}: {last}")

    async def _by_name(self, name: str) -> list[Address]:
        """The address of the schedd the collector knows by this name (`schedd2`, or
        `schedd2@host` in full), as condor_submit -name finds one."""
        from condorx.client.collector import CollectorClient

        rows = await CollectorClient(self.cfg, self._creds).query_rows(
            "scheduler", ["Name", "MyAddress"]
        )
        ads = [(str(n), str(a)) for n, a in rows if isinstance(n, str) and isinstance(a, str)]
        chosen = [a for n, a in ads if n == name] or [
            a for n, a in ads if n.partition("@")[0] == name
        ]
        if len(chosen) != 1:
            known = ", ".join(sorted(n for n, _ in ads)) or "none"
            raise wire.WireError(f"no single schedd named {name!r} (the collector knows {known})")
        return [Address.parse(chosen[0])]

    def _creds_for(self, addr: Address) -> Credentials:
        # On the local socket the uid is the identity unless a token names someone else.
        if addr.unix is not None and not os.environ.get("CONDORX_TOKEN"):
            return Credentials()
        return self.creds

    async def submit(
        self,
        cluster: Mapping[str, Any],
        procs: Sequence[Mapping[str, Any]],
        cluster_id: int | None = None,
        spool: Sequence[Mapping[str, bytes]] | None = None,
        factory: Mapping[str, Any] | None = None,
    ) -> int:
        """New jobs; with `spool`, each proc's input files go with it (condor_submit -spool);
        with `factory` ({"limit": n}), the schedd makes them as their turn comes."""
        reply = await self.submitted(cluster, procs, cluster_id, spool, factory)
        return int(reply.cluster)

    async def submitted(
        self,
        cluster: Mapping[str, Any],
        procs: Sequence[Mapping[str, Any]],
        cluster_id: int | None = None,
        spool: Sequence[Mapping[str, bytes]] | None = None,
        factory: Mapping[str, Any] | None = None,
    ) -> Submitted:
        """As `submit`, with the whole reply: the cluster, and what the schedd warned of."""
        from condorx.transport.protocol.schedd.submit import Submit, Submitted

        spooled = [dict(f) for f in spool] if spool is not None else None
        made = dict(factory) if factory is not None else None
        req = Submit(list(procs), dict(cluster), cluster_id, spooled, made)
        async with self.channel() as ch:
            reply = await ch.request(req.to_wire())
        return Submitted.from_wire(reply)

    async def reserve(self, count: int = 1) -> int:
        """A cluster id for a submission still to be built (for `$(Cluster)`); with
        `count`, the first of that many in a row."""
        from condorx.transport.protocol.schedd.submit import Reserve, Reserved

        req = Reserve(count) if count != 1 else Reserve()
        async with self.channel() as ch:
            return int(Reserved.from_wire(await ch.request(req.to_wire())).cluster)

    async def query_rows(
        self, exprs: Sequence[str], constraint: str | None = None, limit: int | None = None
    ) -> AsyncIterator[list[list[Any]]]:
        """Evaluated `exprs` for each matching job (the first `limit`), in chunks."""
        async for chunk in self._stream(
            QueryJobs(constraint=constraint, exprs=list(exprs), limit=limit)
        ):
            yield chunk

    async def totals(self, constraint: str | None = None) -> dict[int, int]:
        """How many matching jobs have each JobStatus, counted by the schedd."""
        counts: dict[int, int] = {}
        async for chunk in self._stream(QueryJobs(constraint=constraint, totals=True)):
            for row in chunk:
                if not (isinstance(row, list) and len(row) == 2 and _is_count(row[1], 0)):
                    raise wire.WireError("totals: a row is not [status, count]")
                counts[row[0]] = counts.get(row[0], 0) + row[1]
        return counts

    async def query_ads(
        self,
        constraint: str | None = None,
        limit: int | None = None,
        after: str | None = None,
        routes: Sequence[Mapping[str, Any]] = (),
        projection: Sequence[str] | None = None,
    ) -> AsyncGenerator[list[ClassAd], None]:
        """Matching jobs' ads, in chunks, in job id order; `limit` and `after` (a job id)
        read the queue page by page; `routes` (route ads) keeps only jobs some route's
        requirements accept; `projection` asks for only the attributes it names."""
        req = QueryJobs(
            constraint=constraint,
            limit=limit,
            after=after,
            routes=list(routes),
            projection=list(projection) if projection is not None else None,
        )
        async for chunk in self._stream(req):
            if not isinstance(chunk, bytes):
                raise wire.WireError("query: a chunk of job ads is not a packed body")
            yield wire.ads_from_packed(chunk, "job ad")

    async def autoclusters(
        self, constraint: str, pool: Sequence[ClassAd]
    ) -> AsyncGenerator[list[tuple[int, ClassAd]], None]:
        """The waiting jobs that match `constraint`, grouped as slots with the `pool`'s
        policies cannot tell them apart: (how many, the first job's ad) per group, in
        chunks."""
        req = Autoclusters(constraint=constraint, pool=wire.pack_classads(list(pool)))
        async for chunk in self._stream(req):
            if not (
                isinstance(chunk, list)
                and len(chunk) == 2
                and isinstance(chunk[0], list)
                and all(_is_count(n, 1) for n in chunk[0])
                and isinstance(chunk[1], bytes)
            ):
                raise wire.WireError("autoclusters: a chunk is not [counts, packed ads]")
            ads = wire.ads_from_packed(chunk[1], "autocluster ad")
            if len(ads) != len(chunk[0]):
                raise wire.WireError("autoclusters: the counts and the ads differ in number")
            yield list(zip(chunk[0], ads, strict=True))

    async def aggregate(
        self, by: Sequence[str] | None, constraint: str | None = None, limit: int | None = None
    ) -> AsyncGenerator[list[ClassAd], None]:
        """The queue aggregated as condor_q -group-by (`by`: the attributes) or
        -autocluster (`by` None) asks, one ad per group (with its JobCount and the first
        and last of its JobIds), in chunks."""
        from condorx.transport.protocol.schedd.query import AggregateJobs

        req = AggregateJobs(list(by) if by is not None else None, constraint, limit, 2)
        async for chunk in self._stream(req):
            if not isinstance(chunk, bytes):
                raise wire.WireError("aggregate_jobs: a chunk of ads is not a packed body")
            yield wire.ads_from_packed(chunk, "aggregate ad")

    async def _stream(self, req: Any) -> AsyncIterator[Any]:
        async with self.channel() as ch:
            async for chunk in ch.streamed(req.to_wire()):
                yield chunk

    async def act(
        self,
        action: str,
        ids: Sequence[str] = (),
        constraint: str | None = None,
        reason: str | None = None,
        per_job: bool = False,
    ) -> Acted:
        """`action` (remove, remove-x, hold, release, suspend, continue) on the jobs named;
        `per_job` asks for each job's outcome ("results": id -> ok, not-found, denied,
        bad-status, already-done) and the queue's size, instead of a refusal when an id
        is not in the queue."""
        from condorx.transport.protocol.schedd.act import Act, Acted

        req = Act(action, list(ids), constraint, reason, per_job)
        async with self.channel() as ch:
            return Acted.from_wire(await ch.request(req.to_wire()))

    async def reschedule(self) -> None:
        """Ask the schedd to have the negotiator run a cycle now (condor_reschedule)."""
        from condorx.transport.protocol.schedd.act import Reschedule

        async with self.channel() as ch:
            await ch.request(Reschedule().to_wire())

    async def edit(
        self,
        attrs: Mapping[str, str],
        ids: Sequence[str] = (),
        constraint: str | None = None,
        evaluate: bool = False,
        per_job: bool = False,
        strict: bool = False,
        only_mine: bool = False,
    ) -> Acted:
        """Set attributes to expressions (or, with `evaluate`, to their values in each job);
        `per_job`, `strict` and `only_mine` as the Edit request says."""
        from condorx.transport.protocol.schedd.act import Acted, Edit

        req = Edit(dict(attrs), list(ids), constraint, evaluate, per_job, strict, only_mine)
        async with self.channel() as ch:
            return Acted.from_wire(await ch.request(req.to_wire()))

    async def exited(self, job: str, code: int | None = None, signal: int | None = None) -> str:
        from condorx.transport.protocol.schedd.peers import Exited, ExitRecorded

        async with self.channel() as ch:
            reply = await ch.request(Exited(job, code, signal).to_wire())
        return ExitRecorded.from_wire(reply).outcome

    async def route(self, items: list[dict[str, Any]]) -> list[dict[str, str]]:
        """Routed copies of idle jobs (the job router's); each item's result."""
        from condorx.transport.protocol.schedd.peers import Route, Routed

        async with self.channel() as ch:
            reply = await ch.request(Route(items).to_wire())
        return list(Routed.from_wire(reply).results)

    async def retrieve(self, job: str) -> dict[str, bytes]:
        """A spooled job's output files, by name."""
        from condorx.transport.protocol.schedd.files import Output, Retrieve

        async with self.channel() as ch:
            reply = await ch.request(Retrieve(job).to_wire())
        return dict(Output.from_wire(reply).files)


def history_ads(cfg: Config) -> Iterator[ClassAd]:
    """Finished jobs, newest first, from the schedd's history file."""
    from condorx.language.history import read_newest_first

    return read_newest_first(locate.history_file(cfg))


def _is_count(n: Any, least: int) -> bool:
    """A peer's count: an integer (not a bool) of at least `least`."""
    return isinstance(n, int) and not isinstance(n, bool) and n >= least
