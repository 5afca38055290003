"""The startd: advertises its slots, moves each through the policy state machine
(`states`), accepts matches and claims, and runs jobs through a starter process per claim.

Commands from the pool's own daemons:
- `match` (negotiator, only for a preempting match or under NEGOTIATOR_INFORM_STARTD):
  reserve a slot for a claim id (transition 6); it lapses after MATCH_TIMEOUT (8).
- `claim` (schedd): take up a matched claim (9), or claim a slot by the claim id it
  offers in its private ad (5); with the claim's first job, which runs at once.
- `run` (schedd): run a job on a claim (11). The reply streams `{"more": ...}` frames
  (`started`, an `alive` heartbeat (`condorx.daemons.core.job_lease`), and `suspended` or
  `continued` when the policy pauses the job) and ends with how the job ended, or with
  `vacated` when the startd took it off (with `claim_ended` when the claim is over). The
  open connection is the job's lease: if the startd dies, the schedd sees it at once.
- `deactivate` (schedd): stop the job on a claim; `suspend`/`continue` (condor_suspend);
  `release` (schedd): give the claim up.
And from an administrator: `vacate` (condor_vacate; `fast` skips retirement and vacating).

The parts: `driver` moves every slot through the policy state machine; `claims` answers
match, claim, release and vacate; `runs` runs jobs on claims and answers deactivate,
suspend, continue, peek and the slot query; `drains` answers condor_drain; `fetch` runs
the FETCH_WORK hooks. This module wires them together, advertises the slots, and shuts
the startd down.

Shutting down (manual 3.5.8.4): SIGTERM is graceful (every claim retires, its job given
MaxJobRetirementTime, then vacated); SIGQUIT is fast (no retirement, jobs killed at once);
SIGUSR1 is peaceful (retirement without end: running jobs finish, nothing is killed). The
startd takes no new work meanwhile, and exits once no claim is left.
"""

from __future__ import annotations

import logging
import signal
from typing import Any

import trio

from condorx.client.collector import CollectorClient
from condorx.daemons.core.advertiser import Advertiser
from condorx.daemons.core.server import Handler, Server
from condorx.daemons.startd import starter_forks
from condorx.daemons.startd.claims import Claims
from condorx.daemons.startd.drains import Drains
from condorx.daemons.startd.driver import Driver
from condorx.daemons.startd.fetch import Fetcher
from condorx.daemons.startd.runs import Runs
from condorx.daemons.startd.starter_port import Spawn
from condorx.daemons.startd.starter_process import StarterProcess
from condorx.language.config import Config
from condorx.record import replace
from condorx.transport import locate, wire
from condorx.transport.cedar import startd as cedar_startd
from condorx.transport.connection import daemon_credentials
from condorx.transport.protocol.message import Message
from condorx.transport.protocol.startd import (
    CancelDrain,
    ClaimSlot,
    Continue,
    Deactivate,
    DrainJobs,
    Match,
    Matches,
    Peek,
    QuerySlots,
    Release,
    RunJob,
    Suspend,
    Vacate,
)

log = logging.getLogger("condorx.startd")

# The startd stops in its own ways on these signals (see `serve`).
HANDLES_SIGNALS = True
SHUTDOWN_SIGNALS = {
    signal.SIGTERM: "graceful",
    signal.SIGINT: "graceful",
    signal.SIGQUIT: "fast",
    signal.SIGUSR1: "peaceful",
}


class Startd:
    """One machine's startd: its policy driver and the request handlers over it. `driver`
    is the machine's (this host's when None); `spawn` starts a claim's starter (the
    simulator gives each simulated machine its own driver and its execution backend)."""

    def __init__(
        self, cfg: Config, driver: Driver | None = None, spawn: Spawn = StarterProcess.spawn
    ) -> None:
        self.cfg = cfg
        self.driver = driver = driver or Driver(cfg)
        self.table = driver.table
        # A stop asked for from inside (a drain that ends in exit), as a signal would.
        self.stop_requested = trio.Event()
        self.stop_mode = "graceful"
        self.exit_status = 0
        self.runs = Runs(driver, spawn)
        self.claims = Claims(driver, self.runs.run)
        self.drains = Drains(driver, self._exit)
        driver.fetcher = Fetcher(driver, self.runs.execute)

    def ads(self) -> list[dict[str, Any]]:
        """The slots' ads for the collector, as a new update in sequence."""
        self.table.sequence += 1
        return self.table.ads() + self.table.private_ads()

    def packed_ads(self) -> list[bytes]:
        """`ads`, each packed alone (`wire.packed_array` joins them)."""
        self.table.sequence += 1
        return self.table.packed_ads() + [wire.dumps(ad) for ad in self.table.private_ads()]

    def _exit(self, status: int) -> None:
        self.exit_status = status
        self.stop_requested.set()

    def handlers(self) -> dict[type[Message], Handler]:
        claims, runs, drains = self.claims, self.runs, self.drains
        return {
            Match: claims.match,
            Matches: claims.matches,
            ClaimSlot: claims.claim,
            Release: claims.release,
            Vacate: claims.vacate,
            RunJob: runs.run,
            Deactivate: runs.deactivate,
            Suspend: runs.suspend,
            Continue: runs.resume,
            QuerySlots: runs.query_slots,
            Peek: runs.peek,
            DrainJobs: drains.drain,
            CancelDrain: drains.cancel_drain,
        }


async def _stop_on_signals(startd: Startd) -> None:
    with trio.open_signal_receiver(*SHUTDOWN_SIGNALS) as signals:
        async for signum in signals:
            startd.stop_mode = SHUTDOWN_SIGNALS[signal.Signals(signum)]
            startd.stop_requested.set()
            return


async def serve(
    cfg: Config, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    startd = Startd(cfg)
    driver = startd.driver
    collector = CollectorClient(cfg, daemon_credentials(cfg))
    advertiser = Advertiser(collector, startd.ads, startd.table.update_interval)
    driver.touched = lambda slot: advertiser.poke()
    server = Server.for_daemon("startd", startd.handlers(), cfg, cedar_startd.commands())
    server.show(lambda: startd.table.ads())  # as advertised, without a new sequence number
    try:
        async with trio.open_nursery() as nursery:
            driver.nursery = nursery
            address = await server.listen(nursery, cfg.get_int("STARTD_PORT", 0))
            startd.table.machine = replace(startd.table.machine, address=address)
            locate.write_address(locate.startd_address_file(cfg), address)
            # The starters' fork server, started beside the first poll, not at a claim.
            nursery.start_soon(trio.to_thread.run_sync, starter_forks.warm)
            await driver.poll()  # Owner to Unclaimed (1) before the first advertisement
            nursery.start_soon(driver.poll_loop)
            await nursery.start(advertiser.run)
            driver.fetcher.start(nursery)
            log.info("startd with %d slots at %s", len(startd.table.slots), address)
            task_status.started(address)
            nursery.start_soon(_stop_on_signals, startd)
            await startd.stop_requested.wait()
            await driver.shutdown(startd.stop_mode)
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            driver.backfill.kill(signal.SIGKILL)
            for starter in driver.starters.values():
                await starter.close()
            await collector.withdraw("Machine", [s.name for s in startd.table.all_slots()])
    if startd.exit_status:
        raise SystemExit(startd.exit_status)
