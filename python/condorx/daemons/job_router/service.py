"""The job router (Job Router manual): every JOB_ROUTER_POLLING_PERIOD seconds it reads the
schedd's queue, and turns idle vanilla jobs that a route's requirements accept into
routed copies, within each route's MaxJobs and MaxIdleJobs and unless its failure rate
is over FailureRateThreshold.

The router keeps nothing of its own: which job is routed where lives in the queue (the
schedd makes each copy and ties it to its original in one transaction, and keeps the
two in step: see condorx.daemons.schedd.routing), and the failure rates come from the
history file. So a router killed at any moment and started again carries on where the
queue says, with no job lost, routed twice or left orphaned.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from contextlib import aclosing
from pathlib import Path
from typing import Any

import trio

from condorx.classad import ClassAd
from condorx.client.schedd import ScheddClient, history_ads
from condorx.daemons.core.server import Handler, Peer, Server
from condorx.daemons.job_router import table as routing_table
from condorx.daemons.job_router.failures import Failures
from condorx.daemons.job_router.table import Route, Table
from condorx.daemons.job_router.transform import TransformError, routed_copy, sandboxing
from condorx.language.attrs import NOT_COPIED, PROTECTED
from condorx.language.config import Config
from condorx.transport import locate, wire
from condorx.transport.connection import daemon_credentials
from condorx.transport.protocol.job_router import DescribeRoutes, PollNow, Routes
from condorx.transport.protocol.message import Done, Message
from condorx.transport.protocol.schedd import peers

log = logging.getLogger("condorx.job_router")

CANDIDATES = (
    'JobUniverse == 5 && JobStatus == 1 && Managed =!= "External" && RoutedFromJobId =?= undefined'
)
COPIES = "RoutedFromJobId =!= undefined"
ACTIVE = (1, 2, 5, 7)  # idle, running, held, suspended: on the route


class Router:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.schedd = ScheddClient(cfg, creds=daemon_credentials(cfg))
        self.period = max(1, cfg.get_int("JOB_ROUTER_POLLING_PERIOD", 10))
        self.refresh = cfg.get_int("JOB_ROUTER_ENTRIES_REFRESH", 0)
        source = (cfg.get("JOB_ROUTER_SOURCE_JOB_CONSTRAINT") or "").strip()
        self.candidates = f"({CANDIDATES}) && ({source})" if source else CANDIDATES
        self.failures = Failures()
        self.failures.seen_until = int(time.time() - self.failures.window)
        self.table = Table()
        self.loaded_at = 0.0
        self.wake = trio.Event()
        # Passes made, whether one is under way, and the end of each (for PollNow).
        self.passes = 0
        self._polling = False
        self._passed = trio.Event()

    def load_table(self) -> None:
        self.table = routing_table.load(self.cfg)
        self.loaded_at = time.monotonic()
        for err in self.table.errors:
            log.error("routing table: %s", err)
        for r in self.table.routes:
            log.info(
                "route %r: %s, MaxJobs %d, MaxIdleJobs %d",
                r.name,
                r.grid_resource or f"universe {r.target_universe}",
                r.max_jobs,
                r.max_idle,
            )

    async def poll(self) -> int:
        """One pass: judge finished copies, count each route's jobs, route what fits."""
        if self.refresh > 0 and time.monotonic() - self.loaded_at >= self.refresh:
            self.load_table()
        routes = self.table.by_name()
        if not routes:
            return 0
        self.failures.judge(history_ads(self.cfg), routes)
        on_route, idle = await self._counts()
        todo: list[dict[str, Any]] = []
        now = time.time()
        room = self._room(on_route, idle, now)
        if room == 0:
            return 0  # every route is full or throttled: the idle jobs need not be read
        # A first page about the size of the room; most queues fill it there. If not
        # (jobs no route takes), the rest in one read, never page after page.
        page = max(100, 2 * room)
        after: str | None = None
        for limit in (page, None):
            seen = 0
            query = self.schedd.query_ads(
                self.candidates,
                limit=limit,
                after=after,
                routes=self._open_routes(on_route, idle, now),
            )
            async with aclosing(query) as chunks:
                async for chunk in chunks:
                    seen += len(chunk)
                    if chunk:
                        after = _id(chunk[-1])
                    room = self._route_chunk(chunk, on_route, idle, now, room, todo)
                    if room <= 0:
                        break  # the rest of the queue waits for the next pass
            if room <= 0 or limit is None or seen < limit:
                break
        return await self._submit(todo)

    def _route_chunk(
        self,
        chunk: list[ClassAd],
        on_route: Counter[str],
        idle: Counter[str],
        now: float,
        room: int,
        todo: list[dict[str, Any]],
    ) -> int:
        """Choose a route for each job of the chunk that one takes; the room left."""
        for job in sorted(chunk, key=_order):
            route = self._choose(job, on_route, idle, now)
            if route is None:
                continue
            try:
                copy = routed_copy(job, route)
                sandbox = sandboxing(route, job, copy)
            except TransformError as e:
                log.error("job %s: %s", _id(job), e)
                continue
            item: dict[str, Any] = {"job": _id(job), "copy": copy_map(copy), "route": route.name}
            if sandbox:
                item["sandbox"] = True
                if route.evaluates("UseSharedX509UserProxy", job) is True:
                    item["shared_proxy"] = copy.get("X509UserProxy")
            todo.append(item)
            on_route[route.name] += 1
            idle[route.name] += 1
            room -= 1
        return room

    def _open_routes(
        self, on_route: Counter[str], idle: Counter[str], now: float
    ) -> list[dict[str, Any]]:
        """The ads of the routes with room: the schedd sends only jobs one of them takes."""
        return [
            wire.ad_to_wire(r.ad)
            for r in self.table.routes
            if on_route[r.name] < r.max_jobs
            and idle[r.name] < r.max_idle
            and not self.failures.throttled(r, now)
        ]

    def _room(self, on_route: Counter[str], idle: Counter[str], now: float) -> int:
        """How many more jobs the routes can take now, all together."""
        return sum(
            max(0, min(r.max_jobs - on_route[r.name], r.max_idle - idle[r.name]))
            for r in self.table.routes
            if not self.failures.throttled(r, now)
        )

    async def _counts(self) -> tuple[Counter[str], Counter[str]]:
        on_route: Counter[str] = Counter()
        idle: Counter[str] = Counter()
        async for rows in self.schedd.query_rows(["RouteName", "JobStatus"], COPIES):
            for name, status in rows:
                if status in ACTIVE:
                    on_route[str(name)] += 1
                    idle[str(name)] += status == 1
        return on_route, idle

    def _choose(
        self, job: ClassAd, on_route: Counter[str], idle: Counter[str], now: float
    ) -> Route | None:
        """The route for the job: of those that accept it and have room, the one with
        the fewest idle jobs (then the first in the table)."""
        best = None
        for r in self.table.routes:
            if on_route[r.name] >= r.max_jobs or idle[r.name] >= r.max_idle:
                continue
            if self.failures.throttled(r, now) or not r.accepts(job):
                continue
            if best is None or idle[r.name] < idle[best.name]:
                best = r
        return best

    async def _submit(self, todo: list[dict[str, Any]]) -> int:
        if not todo:
            return 0
        async with self.schedd.channel() as ch:
            reply = await ch.request(peers.Route(todo).to_wire())
        results = peers.Routed.from_wire(reply).results
        done = 0
        for item, result in zip(todo, results, strict=False):
            if isinstance(result, dict) and "copy" in result:
                done += 1
                log.info("routed job %s to %r as %s", item["job"], item["route"], result["copy"])
            else:
                log.info("job %s not routed: %s", item["job"], (result or {}).get("error"))
        return done

    async def loop(self) -> None:
        while True:
            self._polling = True
            try:
                await self.poll()
            except (OSError, wire.WireError) as e:
                log.warning("cannot reach the schedd: %s", e)
            except wire.RemoteError as e:
                log.warning("the schedd refused the router: %s", e)
            except Exception:
                # One bad pass (a route expression, a strange ad) must not stop routing.
                log.exception("routing pass failed")
            finally:
                self._polling = False
                self.passes += 1
                self._passed.set()
                self._passed = trio.Event()
            with trio.move_on_after(self.period):
                await self.wake.wait()
            self.wake = trio.Event()

    async def poll_now(self, peer: Peer, req: PollNow, ch: wire.Channel) -> Done:
        """A pass at once, answered when it is over: one begun after this request (an
        admin who does not want to wait; a test that must see what a pass does)."""
        target = self.passes + (2 if self._polling else 1)
        self.wake.set()
        while self.passes < target:
            await self._passed.wait()
        return Done()

    async def describe(self, peer: Peer, req: DescribeRoutes, ch: wire.Channel) -> Routes:
        """The routing table as loaded, with each route's failure rate and whether it
        is throttled (condor_router_q shows routes that have no jobs too)."""
        now = time.time()
        routes = [
            {
                "name": r.name,
                "grid_resource": r.grid_resource,
                "max_jobs": r.max_jobs,
                "max_idle": r.max_idle,
                "failure_rate": self.failures.rate(r.name, now),
                "throttled": self.failures.throttled(r, now),
            }
            for r in self.table.routes
        ]
        return Routes(routes, list(self.table.errors))


def _order(job: ClassAd) -> tuple[int, int, int]:
    return (
        int(job.get("QDate") or 0),
        int(job.get("ClusterId") or 0),
        int(job.get("ProcId") or 0),
    )


def _id(job: ClassAd) -> str:
    return f"{job.get('ClusterId')}.{job.get('ProcId')}"


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    router = Router(cfg)
    router.load_table()
    handlers: dict[type[Message], Handler] = {
        DescribeRoutes: router.describe,
        PollNow: router.poll_now,
    }
    server = Server.for_daemon("job_router", handlers, cfg)
    async with trio.open_nursery() as nursery:
        address = await server.listen(
            nursery,
            cfg.get_int("JOB_ROUTER_PORT", 0),
            address_file=Path(locate.job_router_address_file(cfg)),
        )
        nursery.start_soon(router.loop)
        log.info("job router at %s, polling every %d s", address, router.period)
        task_status.started(address)


def copy_map(copy: ClassAd) -> dict[str, Any]:
    """The attributes a routed copy is submitted with: all but the schedd's own."""
    return {
        name: value
        for name, value in wire.ad_to_wire(copy).items()
        if name.lower() not in PROTECTED and name.lower() not in NOT_COPIED
    }
