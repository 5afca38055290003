"""Reading the queue: condor_q's query (in pages, projected, or as CEDAR rows for
HTCondor's clients; jobs some route accepts, for the job router) and the negotiator's
request for our waiting jobs grouped into autoclusters. Rows go out in chunks, the
loop yielding between them, so that a 100,000-job answer never stalls the schedd."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import trio

from condorx.classad import ClassAd, ExprTree, eval_against, eval_each
from condorx.daemons.core import query
from condorx.daemons.core.accounts import accounting_name
from condorx.daemons.core.server import Peer
from condorx.daemons.schedd import aggregates, jobsets
from condorx.daemons.schedd.autoclusters import Autoclusters as Groups
from condorx.daemons.schedd.choosing import select
from condorx.daemons.schedd.ledger import Ledger
from condorx.daemons.schedd.shadow import Shadows
from condorx.daemons.schedd.store import Key, parse_job_id
from condorx.errors import Refusal, Refused
from condorx.language.attrs import Universe
from condorx.transport import wire
from condorx.transport.protocol.message import Count
from condorx.transport.protocol.schedd.query import (
    AggregateJobs,
    Autoclusters,
    QueryClaims,
    QueryJobs,
)

CHUNK = 10_000


class Queries:
    def __init__(
        self,
        ledger: Ledger,
        shadows: Shadows,
        groups: Groups,
        significant: list[str],
        use_jobsets: bool = False,
    ) -> None:
        self.ledger = ledger
        self.shadows = shadows
        self.groups = groups  # the idle jobs grouped for the negotiators' last requests
        self.significant = significant or list(aggregates.DEFAULT_ATTRS)  # -autocluster's
        self.use_jobsets = use_jobsets
        # Which accounting names a negotiator may have jobs of (None: all): another
        # pool's, only those flocking to it (the schedd sets it).
        self.offered_to: Callable[[Peer], Callable[[str], bool] | None] = lambda peer: None

    async def query(self, peer: Peer, req: QueryJobs, ch: wire.Channel) -> Count:
        jobs = self.ledger.snapshot() if req.procs is not False else []
        if req.clusters:  # each cluster's own ad just before its jobs
            jobs = sorted([*jobs, *self.ledger.cluster_ads()], key=lambda item: item[0])
        if req.jobsets and self.use_jobsets:  # made from the queue's jobs, before them
            sets = jobsets.ads(self.ledger.snapshot())
            jobs = [((0, ad["JobSetId"]), ad) for ad in sets] + jobs
        after = parse_job_id(req.after)
        if after is not None:  # the next page: the jobs after this one (queue order is
            jobs = [(k, ad) for k, ad in jobs if k > after]  # submission order, by id)
        ads = select(jobs, req.constraint)
        if req.routes:
            ads = _routable(ads, req.routes)
        if req.limit is not None and req.limit >= 0:
            ads = ads[: req.limit]
        if req.totals:
            statuses = Counter(eval_each(_STATUS, [ad for _, ad in ads]))
            await ch.send({"more": [[s, n] for s, n in statuses.items() if isinstance(s, int)]})
            return Count(len(ads))
        step = min(CHUNK, max(1, len(ads)))
        for start in range(0, len(ads), step):
            chunk = [ad for _, ad in ads[start : start + step]]
            await ch.send({"more": _rows(req, chunk)})
            await trio.lowlevel.checkpoint()
        return Count(len(ads))

    async def aggregate(self, peer: Peer, req: AggregateJobs, ch: wire.Channel) -> Count:
        """condor_q -group-by and -autocluster: one ad per group of jobs."""
        default = req.by is None
        names = req.by if isinstance(req.by, list) else []
        if not default and (names is not req.by or not all(isinstance(a, str) for a in names)):
            raise Refused(Refusal.BAD_REQUEST, "aggregate_jobs: 'by' must be attribute names")
        jobs = self.ledger.snapshot()
        if not default:  # grouping by chosen attributes, the constraint chooses jobs too
            jobs = select(jobs, req.constraint)
        attrs = self.significant if default else [str(a) for a in names]
        ads = await aggregates.aggregate(jobs, attrs, default, req.max_ids)
        ads = [ad for _, ad in select([((0, 0), ad) for ad in ads], req.constraint)]
        if req.limit is not None and req.limit >= 0:
            ads = ads[: req.limit]
        if ads:
            if req.cedar is not None:
                await ch.send({"more": query.cedar_rows(ads, req)})
            else:
                await ch.send({"more": wire.pack_classads(ads, query.projection_of(req))})
        return Count(len(ads))

    async def claims(self, peer: Peer, req: QueryClaims, ch: wire.Channel) -> Count:
        """The claimed slots' ads (once claimed: a match not yet claimed has none), each
        with its claim's Activity: Busy while it runs a job, else Idle."""
        ads = []
        for claim in list(self.shadows.held.values()):
            if claim.slot_ad is None:
                continue
            ad = claim.slot_ad.ad().copy()
            ad["Activity"] = "Busy" if claim.job is not None else "Idle"
            ads.append(((0, 0), ad))
        chosen = [ad for _, ad in select(ads, req.constraint)]
        if chosen:
            await ch.send({"more": query.cedar_rows(chosen, req)})
        return Count(len(chosen))

    async def autoclusters(self, peer: Peer, req: Autoclusters, ch: wire.Channel) -> Count:
        """A negotiator's request for our waiting jobs, one row per group of them."""
        if not isinstance(req.pool, bytes):
            raise Refused(Refusal.BAD_REQUEST, "autoclusters: the pool is not a packed body")
        try:
            pool = wire.ads_from_packed(req.pool, "pool ad")
        except wire.WireError as e:
            raise Refused(Refusal.BAD_REQUEST, f"autoclusters: {e}") from None
        keys, ads = self.ledger.keys_and_ads()
        skip = list(map(self.shadows.taken().__contains__, keys))  # not offered again
        asked = f" && ({req.constraint})" if req.constraint not in (None, "", True) else ""
        try:
            # The schedd runs scheduler-universe jobs itself.
            constraint = ExprTree(f"JobUniverse =!= {int(Universe.SCHEDULER)}{asked}")
        except ValueError as e:
            raise Refused(Refusal.BAD_REQUEST, f"constraint: {e}") from None
        groups = await self.groups.group(keys, ads, skip, constraint, pool, str(req.constraint))
        offered = self.offered_to(peer)
        if offered is not None:  # another pool's negotiator: the submitters flocking there
            groups = [g for g in groups if offered(accounting_name(g[2]))]
        groups = _within(groups, self.shadows.room())
        for start in range(0, len(groups), CHUNK):
            some = groups[start : start + CHUNK]
            counts = [count for _, count, _ in some]
            await ch.send({"more": [counts, wire.pack_classads([ad for _, _, ad in some])]})
        return Count(len(groups))


_STATUS = ExprTree("JobStatus")


def _within(groups: list[Any], room: int) -> list[Any]:
    """The groups offered to a negotiator, cut to as many jobs as may still start
    (MAX_JOBS_RUNNING): the first groups first, the last one cut short."""
    out = []
    for first, count, ad in groups:
        if room <= 0:
            break
        out.append((first, min(count, room), ad))
        room -= count
    return out


def _rows(req: QueryJobs, ads: list[ClassAd]) -> list[Any] | bytes:
    """The chunk as the asker reads it: CEDAR ads, expressions' values, or the ads (with
    only the projection's attributes, if it has one) as one packed body, written in the
    core and read there, with no text made or parsed."""
    if req.cedar is not None:
        return query.cedar_rows(ads, req)
    if req.exprs:
        return query.evaluate(req.exprs, ads)
    return wire.pack_classads(ads, query.projection_of(req))


def _routable(jobs: list[tuple[Key, ClassAd]], routes: Any) -> list[tuple[Key, ClassAd]]:
    """The jobs some route's requirements accept (the route as MY, the job as TARGET),
    judged here in one pass per route so that the router reads only those."""
    if not isinstance(routes, list):
        raise Refused(Refusal.BAD_REQUEST, "query: 'routes' must be a list of route ads")
    ads = [ad for _, ad in jobs]
    taken = [False] * len(jobs)
    for data in routes:
        route = wire.ad_from_wire(data, "route ad")
        if "requirements" not in route:
            return jobs
        for i, v in enumerate(eval_against(route.lookup("requirements"), route, ads)):
            taken[i] = taken[i] or v is True
    return [job for job, ok in zip(jobs, taken, strict=True) if ok]
