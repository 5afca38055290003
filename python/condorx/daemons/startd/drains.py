"""condor_drain and condor_drain -cancel, as the startd answers them: the request
checked and recorded (`draining.Drain`), every claim let go as it asks, and, after each
poll, the final draining of a drain with a START of its own, and once every slot is
Drained, what the request asks next (nothing, resume, exit, restart or reconfig).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from condorx.classad import ExprTree
from condorx.daemons.core.run import DAEMON_NO_RESTART, DAEMON_RESTART
from condorx.daemons.core.server import Peer
from condorx.daemons.startd.draining import (
    ALREADY,
    CHECK_FAILED,
    NO_SUCH_REQUEST,
    Drain,
    refused,
)
from condorx.daemons.startd.driver import Driver
from condorx.daemons.startd.slots import Slot
from condorx.daemons.startd.states import State, Why
from condorx.errors import Refusal, Refused
from condorx.transport import wire
from condorx.transport.protocol.message import Done
from condorx.transport.protocol.startd import CancelDrain, DrainJobs, DrainStarted

log = logging.getLogger("condorx.startd")


class Drains:
    """`exit` stops the startd with a status (a drain that ends in exit)."""

    def __init__(self, driver: Driver, exit: Callable[[int], None]) -> None:
        self.driver = driver
        self.exit = exit
        driver.after_poll.append(self._drain_progress)

    async def drain(self, peer: Peer, req: DrainJobs, ch: wire.Channel) -> DrainStarted:
        """condor_drain: every slot takes no new work and its job leaves as asked."""
        if self.driver.draining is not None:
            raise refused(ALREADY, "Draining already in progress.")
        if req.check:
            self._check_drain(req.check)
        drain = Drain.asked(
            req.how,
            req.on_completion,
            req.reason or f"by {peer.user}",
            self.driver.now(),
            req.start,
        )
        # As HTCondor's: the final draining comes when the last job found here ends.
        drain.found_jobs = any(self._found(s) for s in self.driver.table.all_slots())
        self.driver.draining = drain
        self.driver.table.set_draining(drain.ad(), drain.start_text())
        log.info("draining (%s, then %s): %s", drain.how, drain.on_completion, drain.reason)
        await self.driver.give_up_claims(
            Why.DRAIN, "the startd is draining", drain.how == "fast", drain.how == "quick"
        )
        for slot in self.driver.table.all_slots():
            await self.driver.settle(slot)
        await self._drain_progress()
        self.driver.touch()
        return DrainStarted(drain.request_id)

    def _check_drain(self, text: str) -> None:
        try:
            check = ExprTree(text)
        except ValueError as e:
            raise Refused(Refusal.BAD_REQUEST, f"drain: -check {text!r}: {e}") from None
        for slot in self.driver.table.all_slots():
            value = check.eval(self.driver.table.view(slot))
            if not isinstance(value, bool):
                raise refused(
                    CHECK_FAILED,
                    f"Draining check expression does not evaluate to a bool on {slot.name}.",
                )
            if not value:
                raise refused(CHECK_FAILED, f"Draining check expression is false on {slot.name}.")

    async def cancel_drain(self, peer: Peer, req: CancelDrain, ch: wire.Channel) -> Done:
        drain = self.driver.draining
        if req.request_id and (drain is None or drain.request_id != req.request_id):
            raise refused(NO_SUCH_REQUEST, f"No matching draining request id {req.request_id}.")
        if drain is not None:
            self._undrain("condor_drain -cancel")
        return Done()

    def _undrain(self, why: str) -> None:
        log.info("draining is over: %s", why)
        self.driver.draining = None
        self.driver.table.set_draining({}, None)
        for slot in self.driver.table.all_slots():
            slot.flags.no_retirement = False  # a job already leaving goes on leaving
        self.driver.wake_up()
        self.driver.touch()

    async def _drain_progress(self) -> None:
        """Once only jobs the drain let in are left, they go (the final draining); once
        every slot is Drained, what the request asks next."""
        drain = self.driver.draining
        if drain is None or drain.completed:
            return
        found = any(self._found(s) for s in self.driver.table.all_slots())
        if drain.takes_jobs() and drain.found_jobs and not found:
            await self._final_draining(drain)
        if any(s.state != State.DRAINED for s in self.driver.table.all_slots()):
            return
        drain.completed = True
        log.info("drained: every slot is Drained (then %s)", drain.on_completion)
        if drain.on_completion == "resume":
            self._undrain("resume on completion")
            for slot in self.driver.table.all_slots():
                await self.driver.settle(slot)
        elif drain.on_completion == "exit":
            # As HTCondor's: the startd exits, and tells its master not to restart it.
            self.exit(DAEMON_NO_RESTART)
        elif drain.on_completion in ("restart", "reconfig"):
            # A new startd reads the configuration anew, and takes jobs (not draining).
            self.exit(DAEMON_RESTART)

    @staticmethod
    def _found(slot: Slot) -> bool:
        """Whether the slot holds work the drain found (not work its START let in)."""
        claim = slot.claim
        return claim is not None and not claim.while_draining and slot.kind != "Partitionable"

    async def _final_draining(self, drain: Drain) -> None:
        """The jobs the drain found are gone: START is false again, and the jobs it let
        in are vacated at once (their retirement time is none)."""
        log.info("final draining: the jobs draining found are gone, those it let in go now")
        drain.final = True
        self.driver.table.set_draining(drain.ad(), drain.start_text())
        await self.driver.give_up_claims(Why.DRAIN, "the startd is draining", False, True)
        for slot in self.driver.table.all_slots():
            await self.driver.settle(slot)
        self.driver.touch()
