"""How condor_dagman submits its ready nodes' jobs: paced as HTCondor's DAGMan paces them
(DAGMAN_MAX_SUBMITS_PER_INTERVAL a DAGMAN_USER_LOG_SCAN_INTERVAL, DAGMAN_SUBMIT_DELAY
after each), several at once on the run's connections; a schedd that cannot be reached is
tried again after a pause that doubles (DAGMAN_MAX_SUBMIT_ATTEMPTS in all), and a job that
cannot be built (its submit file missing, say) fails its node at once, as HTCondor's
ProcessFailedSubmit does, each in HTCondor's words in `.dagman.out`."""

from __future__ import annotations

import time

import trio

from condorx.dagman.debug_log import DebugLog
from condorx.dagman.engine import Engine
from condorx.dagman.jobstate_log import JobstateLog
from condorx.dagman.submitter import NodeSubmitError, Submitter
from condorx.language.config import Config
from condorx.transport import wire


class Submissions:
    def __init__(
        self,
        engine: Engine,
        submitter: Submitter,
        cfg: Config,
        out: DebugLog,
        jobstate: JobstateLog | None,
        connections: int,
    ) -> None:
        self.engine = engine
        self.submitter = submitter
        self.out = out
        self.jobstate = jobstate
        self._scan_interval = cfg.get_int("DAGMAN_USER_LOG_SCAN_INTERVAL", 5)
        self._per_interval = cfg.get_int("DAGMAN_MAX_SUBMITS_PER_INTERVAL", 100)
        self._delay = cfg.get_int("DAGMAN_SUBMIT_DELAY", 0)
        self._most_attempts = cfg.get_int("DAGMAN_MAX_SUBMIT_ATTEMPTS", 6)
        self._window = (0.0, 0)  # (start of this scan interval, submits made in it)
        self._backoff = 0.0
        self._together = trio.CapacityLimiter(connections)
        self._one_by_one = trio.CapacityLimiter(1)
        self._attempts: dict[str, int] = {}

    async def submit_ready(self) -> None:
        """Submit what is ready, as many as this scan interval still allows."""
        now = trio.current_time()
        if now < self._backoff:
            return
        start, made = self._window
        if now - start >= self._scan_interval:
            start, made = now, 0
        names = self.engine.take_submit(max(self._per_interval - made, 0))
        self._window = (start, made + len(names))
        async with trio.open_nursery() as nursery:
            for name in names:
                nursery.start_soon(self._in_turn, name)

    async def _in_turn(self, name: str) -> None:
        """Several nodes are submitted at once (the schedd makes their submissions
        durable together), unless DAGMAN_SUBMIT_DELAY asks for a pause after each; after
        a refusal to connect, the rest wait for the next try."""
        async with self._one_by_one if self._delay > 0 else self._together:
            if trio.current_time() < self._backoff:
                self.engine.unsubmit(name)
                return
            await self._submit(name)
            if self._delay > 0:
                await trio.sleep(self._delay)

    async def _submit(self, name: str) -> None:
        """Submit one node's job."""
        eng = self.engine
        node, st = eng.dag.nodes[name], eng.states[name]
        if node.noop:
            self.out(f"Node {name} is a NOOP node: not submitting a job")
            eng.noop(name)
            return
        self.out(f"Submitting HTCondor Node {name} job(s)...")
        try:
            cluster, procs = await self.submitter.submit(
                node, st.retries, int(eng.status), eng.failed_nodes
            )
        except NodeSubmitError as e:
            self.out(f"ERROR: submit attempt failed for node {name}: {e}")
            self._failure_event(name, str(e))
            self.out("Node submit failed after 1 try.")
            self.out(f"Shortcutting node {name} retries because of submit failure(s)")
            eng.submit_failed(name, str(e))
            return
        except (wire.WireError, wire.RemoteError, OSError) as e:
            # Unreachable, or refused (a schedd that restarted has forgotten the cluster
            # ids reserved before): the node waits, and is tried again a while later.
            self.submitter.forget_reserved()
            self._refused(name, str(e))
            return
        self._attempts.pop(name, None)
        self.out(f"\tassigned HTCondor ID ({cluster}.0.0)")
        eng.submitted(name, cluster, procs)

    def _failure_event(self, name: str, why: str) -> None:
        """The line Pegasus's monitor reads for a failed submission (HTCondor's words)."""
        when = time.strftime("%m/%d/%y %H:%M:%S")
        what = why.replace("\n", " ")
        node = f"HTCondor Node {name} (-1.-1.-1)"
        self.out(f"Event: ULOG_SUBMIT_FAILURE for {node} {{{when}}} {what}")
        if self.jobstate:
            self.jobstate.node(name, "SUBMIT_FAILURE")

    def _refused(self, name: str, why: str) -> None:
        tries = self._attempts.get(name, 0) + 1
        most = self._most_attempts
        self.out(f"ERROR: submit attempt {tries} of {most} failed for node {name}: {why}")
        self._failure_event(name, why)
        if tries >= most:
            self._attempts.pop(name, None)
            self.engine.submit_failed(name, f"Job submit failed {tries} times: {why}")
            return
        self._attempts[name] = tries
        self.engine.unsubmit(name)
        self._backoff = trio.current_time() + min(2.0**tries, 60.0)
