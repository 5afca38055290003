"""condor_dagman's run of a DAG: it reads the DAG (and its last rescue DAG), submits each
ready node's job to the local schedd, follows the nodes log, runs the PRE, POST and HOLD
scripts, keeps the DAGMan job's DAG_* attributes current, and at the end writes a rescue
DAG if anything failed. Its exit code is the DAG's: 0 when every node succeeded.

A lock file beside the DAG says a DAGMan is (or was) running it. Found at start, it means
the last run was cut off: this run recovers, replaying the nodes log (and asking the
schedd which of its node jobs are still queued), so that no node runs twice and none is
lost. While another live DAGMan of the same DAGMan job holds the lock (the schedd was
restarted and started this one anew), this one waits for it to end first.
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import trio

from condorx.client.schedd import ScheddClient
from condorx.dagman import loading, lock_file, node_job, nodes_log, outcome, rescue, scripts
from condorx.dagman.debug_log import DebugLog
from condorx.dagman.engine import Engine
from condorx.dagman.errors import DagmanError
from condorx.dagman.job_ad import DagmanJob
from condorx.dagman.jobstate_log import JobstateLog
from condorx.dagman.node_state import DagStatus
from condorx.dagman.options import Options
from condorx.dagman.progress_files import ProgressFiles
from condorx.dagman.submissions import Submissions
from condorx.dagman.submitter import Submitter
from condorx.language.config import Config
from condorx.language.dag.graph import cycle_member
from condorx.language.dag.model import Dag
from condorx.language.eventlog import Event, EventLogError, Tail
from condorx.transport import wire

_POLL = 0.1  # how often the nodes log is looked at (a stat and a read)
# Submissions in flight at once, each on a connection of its own kept for the run.
_CONNECTIONS = 8


class Dagman:
    def __init__(self, opts: Options, cfg: Config, out: DebugLog, job: tuple[int, int]) -> None:
        self.opts = opts
        self.cfg = cfg
        self.out = out
        self.job = job  # the DAGMan job's own id; (0, 0) when run by hand
        self.client = ScheddClient(cfg)
        self.dag: Dag = Dag(opts.primary)
        self.engine = Engine(self.dag)
        self.nodes_log = Path(os.path.abspath(opts.primary + ".nodes.log"))
        self.removed = False  # condor_rm of the DAGMan job
        self.stopped = False  # condor_hold of it, or a shutdown
        self.halt_file = Path(opts.primary + ".halt")
        self._wake = trio.Event()
        self.ad = DagmanJob(self.client, job, out)
        self._nursery: trio.Nursery | None = None
        self.started = time.time()
        self.jobstate: JobstateLog | None = None
        self._rescue_number = 0
        self._abort_handled = False
        self._provision_asked = 0.0
        self._was_halted = False

    # ---- the whole run ----------------------------------------------------------------

    async def run(self) -> int:
        self._load()
        recovery = os.path.exists(self.opts.lockfile) or self.opts.do_recovery
        lock = await lock_file.hold(self.opts.lockfile, self.job[0], self.out)
        try:
            await self._start(recovery)
            async with self.client.held(_CONNECTIONS), trio.open_nursery() as nursery:
                self._nursery = nursery
                nursery.start_soon(self._on_removal, nursery.cancel_scope)
                await self._loop(nursery)
                nursery.cancel_scope.cancel()
            return await self._finish()
        finally:
            os.close(lock)

    def _load(self) -> None:
        self.dag, self._rescue_number = loading.load(self.opts, self.cfg, self.out)
        self.files = ProgressFiles(self.dag, self.opts, self.out)
        self.engine = Engine(self.dag, self.opts.limits(self.cfg))
        for name, value in self.dag.maxjobs.items():
            self.engine.limits.categories[name] = value
        detect = self.cfg.get_bool("DAGMAN_STARTUP_CYCLE_DETECT", False)
        self.out(f"DAGMAN_STARTUP_CYCLE_DETECT setting: {detect}")
        if detect and cycle_member(self.dag):
            raise DagmanError("a cycle exists in the dag, please check input")
        self.out(f"Dag contains {len(self.dag.nodes)} total nodes")

    async def _start(self, recovery: bool) -> None:
        self.engine.start()
        submitter = Submitter(self.client, self.cfg, self.dag, await self._context())
        self.tail = Tail(self.nodes_log)
        if self.dag.jobstate_log:
            self.jobstate = JobstateLog(Path(self.dag.jobstate_log), self.dag)
            self.jobstate.internal(f"DAGMAN_STARTED {self.job[0]}.{self.job[1]}")
        self.submissions = Submissions(
            self.engine, submitter, self.cfg, self.out, self.jobstate, _CONNECTIONS
        )
        if not recovery:
            self.nodes_log.write_bytes(b"")
            self.out(f"Default node log file is: <{self.nodes_log}>")
            return
        self.out("Running in RECOVERY mode...")
        if self.jobstate:
            self.jobstate.internal("RECOVERY_STARTED")
        self.engine.recovering = True
        self._replay()
        await self._queued_jobs()
        self.engine.recovering = False
        self.out("...done with RECOVERY mode")
        if self.jobstate:
            self.jobstate.internal("RECOVERY_FINISHED")
        self.out.status(self.engine)

    async def _context(self) -> node_job.Context:
        """What every node job gets from the DAGMan job; the DAGMan job's ad gets its
        batch name and id (HTCondor's defaults: the DAG file's name + cluster, and the
        job's id) if it has none."""
        cluster, proc = self.job
        name = self.opts.batch_name or f"{os.path.basename(self.opts.primary)}+{cluster}"
        batch_id = f"{cluster}.{proc}"
        if cluster:
            ad = await self.ad.own_ad()
            if ad is not None:
                name = str(ad.get("JobBatchName") or name)
                batch_id = str(ad.get("JobBatchId") or batch_id)
            await self.ad.edit({"JobBatchName": _quote(name), "JobBatchId": _quote(batch_id)})
        return node_job.Context(
            dagman_id=cluster,
            nodes_log=str(self.nodes_log),
            batch_name=name if cluster else self.opts.batch_name,
            batch_id=batch_id if cluster else "",
            suppress_notification=self.opts.suppress_notification,
            priority=self.opts.priority,
            append_vars=self.cfg.get_bool("DAGMAN_DEFAULT_APPEND_VARS", False),
            hold_claim_time=self.cfg.get_int("DAGMAN_HOLD_CLAIM_TIME", 20),
            suppress_job_logs=self.cfg.get_bool("DAGMAN_SUPPRESS_JOB_LOGS", False),
            retry_attr="retry" in _words(self.cfg.get("DAGMAN_NODE_RECORD_INFO") or ""),
        )

    # ---- the loop ---------------------------------------------------------------------

    async def _loop(self, nursery: trio.Nursery) -> None:
        engine = self.engine
        while True:
            self._read_events()
            await self._remove_asked()
            self._retries()
            self._save_points()
            halted = self._halted()
            for name in [] if halted else engine.take_pre():
                nursery.start_soon(self._script, "PRE", name)
            for name in engine.take_post():
                nursery.start_soon(self._script, "POST", name)
            if not halted:
                await self.submissions.submit_ready()
            await self._provisioning()
            await self.ad.update(self.engine)
            self.files.status_file(self.engine, self.removed)
            self.files.dot_file(self.engine)
            if halted and not engine.running():
                self.out("DAG is halted and nothing is running: exiting")
                engine.halt()
                return
            if engine.aborted is not None and not self._abort_handled:
                self._abort_handled = True
                self.out("Aborting DAG: ABORT-DAG-ON")
                await self.ad.remove_all(
                    self.dag.final, "DAG Abort: DAG is exiting and writing rescue file."
                )
            if not engine.active():
                self._stuck()
                if engine.start_final():
                    self.out(f"Running FINAL node {self.dag.final}")
                    continue
                return
            self.out.flush()
            with trio.move_on_after(_POLL):
                await self._wake.wait()
            self._wake = trio.Event()

    def _stuck(self) -> None:
        """Nothing runs or waits and no node failed, yet nodes are not done: as HTCondor's
        DAGMan, look for a cycle (DAG_STATUS_CYCLE; DAG_STATUS_ERROR if there is none)."""
        eng = self.engine
        if eng.status != DagStatus.OK or eng.failed_nodes or eng.final_started:
            return
        if not outcome.left_undone(eng):
            return
        self.out("ERROR: DAG finished but not all nodes are complete -- checking for a cycle...")
        if cycle_member(self.dag):
            self.out("... ERROR: a cycle exists in the dag, please check input")
            eng.status = DagStatus.CYCLE
        else:
            self.out("... ERROR: no cycle found; unknown error condition")
            eng.status = DagStatus.ERROR

    def _read_events(self, replay: bool = False) -> None:
        try:
            events = self.tail.read()
        except (OSError, EventLogError) as e:
            self.out(f"ERROR: reading the nodes log {self.nodes_log}: {e}")
            return
        for ev in events:
            name = self.engine.by_cluster.get(ev.cluster)
            if replay and ev.number == 0:
                name = nodes_log.node_of(ev)
                if name in self.dag.nodes:
                    self.engine.recover_submit(name, ev.cluster)
            if ev.number == nodes_log.POST_TERMINATED:
                name = nodes_log.node_of(ev)
                if replay and name in self.dag.nodes:
                    self.engine.post_logged(name, ev.return_value(), ev.signal())
                continue
            mode = " [recovery mode]" if replay else ""
            who = f"Node {name}" if name else "unknown Node"
            self.out(f"Event: {ev.name} for HTCondor {who} ({ev.job}) {{{_when(ev.time)}}}{mode}")
            before = self.engine.held
            old = self.engine.states.get(name) if name else None
            was = old.status if old is not None else ""
            self.engine.event(ev.number, ev.cluster, ev.proc, nodes_log.info(ev))
            if ev.number == 12 and name and not replay and self.engine.held > before:
                self._hold_script(name)
            if name and old is not None and not replay:
                if self.jobstate is not None:
                    job, now = f"{ev.cluster}.{ev.proc}", self.engine.states[name]
                    self.jobstate.job_event(name, old, now, was, ev.name, job, ev.time)
            if name and ev.number == 5:
                self.out(_proc_end(name, ev))
            if name and ev.number == 12:
                self.out(f"  Hold reason: {ev.reason() or '(unknown)'}")
            if name and ev.number in (5, 9):
                self._note_end(name)

    async def _provisioning(self) -> None:
        """A PROVISIONER node's job says it has made the resources ready by setting
        ProvisionerState = 2 in its own ad; asked at most once a second."""
        eng = self.engine
        if eng.provisioned or eng.provisioner is None:
            return
        cluster = eng.states[eng.provisioner].cluster
        now = time.monotonic()
        if cluster is None or now - self._provision_asked < 1.0:
            return
        self._provision_asked = now
        try:
            async for chunk in self.client.query_rows(
                ["ProvisionerState"], f"ClusterId == {cluster}"
            ):
                if any(row and row[0] == 2 for row in chunk):
                    self.out(f"Provisioner node {eng.provisioner} is ready: starting the DAG")
                    eng.provisioning_complete()
        except (wire.WireError, wire.RemoteError, OSError) as e:
            self.out(f"WARNING: cannot read the provisioner job's state: {e}")

    def _retries(self) -> None:
        while self.engine.retried:
            name = self.engine.retried.pop(0)
            st, node = self.engine.states[name], self.dag.nodes[name]
            self.out(f"Retrying node {name} (retry #{st.retries} of {node.retries})...")

    def _save_points(self) -> None:
        """SAVE_POINT_FILE: as a node starts, what is done so far, in rescue form."""
        while self.engine.save_points:
            name = self.engine.save_points.pop(0)
            file = self.dag.nodes[name].save_point
            if file is None:
                continue
            try:
                path = rescue.write_save_point(self.engine, self.opts.primary, name, file)
            except OSError as e:
                self.out(f"Warning: cannot write save file {file}: {e.strerror}")
                continue
            self.out(f"Writing Save File to {path}...")

    def _halted(self) -> bool:
        """A halt file beside the DAG pauses it: no new PRE script or job; what runs
        goes on (POST scripts too). Removing the file resumes the DAG."""
        halted = self.halt_file.exists()
        if halted != self._was_halted:
            self.out("DAG halted (halt file found)" if halted else "DAG resumed (halt file gone)")
            self._was_halted = halted
        return halted

    def _replay(self) -> None:
        self._read_events(replay=True)

    async def _queued_jobs(self) -> None:
        """Recovery: node jobs in the queue the nodes log does not know of (the schedd
        queued them but died before it logged them)."""
        cluster = self.job[0]
        if not cluster:
            return
        try:
            async for chunk in self.client.query_ads(f"DAGManJobId == {cluster}"):
                for ad in chunk:
                    name, job = ad.get("DAGNodeName"), ad.get("ClusterId")
                    if name in self.dag.nodes and isinstance(job, int):
                        if job not in self.engine.by_cluster:
                            self.engine.recover_submit(str(name), job)
                            self.engine.event(0, job, int(ad.get("ProcId") or 0), {})
        except (wire.WireError, wire.RemoteError, OSError) as e:
            self.out(f"WARNING: cannot ask the schedd for this DAG's jobs: {e}")

    def _note_end(self, name: str) -> None:
        st = self.engine.states[name]
        self.out(f"Node {name} job status: {st.status}" + (f" ({st.error})" if st.error else ""))

    # ---- scripts ----------------------------------------------------------------------

    async def _script(self, kind: str, name: str) -> None:
        node, st = self.dag.nodes[name], self.engine.states[name]
        script = node.scripts[kind]
        cwd = node_job.directory(node)
        debug = (script.debug_file, script.debug_type or "ALL") if script.debug_file else None
        job = f"{st.cluster}.0" if kind == "POST" and st.cluster else "-"
        if self.jobstate:
            self.jobstate.node(name, f"{kind}_SCRIPT_STARTED", job)
        while True:
            words = scripts.argv(
                script.command,
                kind,
                self._macros(name),
            )
            self.out(f"Running {kind} script of Node {name}...")
            code, sig, err = await scripts.run(words, cwd, debug)
            if err:
                self.out(f"ERROR: {kind} script of Node {name}: {err}")
            if sig is None and script.defer_status is not None and code == script.defer_status:
                self.out(f"{kind} script of Node {name} deferred for {script.defer_time} seconds")
                await trio.sleep(script.defer_time)
                continue
            break
        self.out(scripts.script_end(kind, name, code, sig))
        if self.jobstate:
            ok = "SUCCESS" if sig is None and code == 0 else "FAILURE"
            self.jobstate.node(name, f"{kind}_SCRIPT_{ok}", job)
        if kind == "PRE":
            self.engine.pre_done(name, code, sig)
        else:
            cluster = st.cluster or 0
            nodes_log.append(self.nodes_log, nodes_log.post_event(cluster, 0, name, code, sig))
            self.engine.post_done(name, code, sig)
        self._wake.set()

    def _hold_script(self, name: str) -> None:
        """A node job was held: its HOLD script runs (its exit changes nothing)."""
        if "HOLD" in self.dag.nodes[name].scripts and self._nursery is not None:
            self._nursery.start_soon(self._run_hold, name)

    async def _run_hold(self, name: str) -> None:
        node = self.dag.nodes[name]
        script = node.scripts["HOLD"]
        words = scripts.argv(
            script.command,
            "HOLD",
            self._macros(name),
        )
        await scripts.run(words, node_job.directory(node))

    # ---- removal, the DAGMan job's ad, the end ----------------------------------------

    async def _on_removal(self, scope: trio.CancelScope) -> None:
        """condor_rm of the DAGMan job: the schedd sends SIGUSR1 (remove_kill_sig); its
        node jobs are removed, and the run stops at once (its scripts killed), or, when
        it has a FINAL node still to run, once that has run, as HTCondor's does.
        condor_hold (or a shutdown) sends SIGTERM: the run stops and leaves its node jobs
        and its lock file, so the next run (on release) recovers."""
        with trio.open_signal_receiver(signal.SIGUSR1, signal.SIGTERM) as signals:
            async for sig in signals:
                if sig == signal.SIGUSR1:
                    self.out("Received SIGUSR1: the DAGMan job was removed")
                    self.removed = True
                    if self.dag.final is not None and not self.engine.final_started:
                        self.engine.remove()  # the loop removes the jobs, then runs FINAL
                        self._wake.set()
                        return
                    self.engine.status = DagStatus.RM
                else:
                    self.out("Received SIGTERM: stopping; the next run recovers")
                    self.stopped = True
                scope.cancel()
                return

    def _macros(self, name: str) -> dict[str, str]:
        return scripts.macros(self.engine, name, self.job[0])

    async def _remove_asked(self) -> None:
        while self.engine.to_remove:
            cluster, why = self.engine.to_remove.pop()
            await self.ad.remove_cluster(cluster, why)

    async def _finish(self) -> int:
        eng = self.engine
        if self.stopped:
            await self.ad.update(self.engine, force=True)
            self.out(f"**** condor_dagman (condor_DAGMAN) pid {os.getpid()} EXITING WITH STATUS 3")
            return 3  # the lock file stays: the next run recovers
        if self.removed:
            await self.ad.remove_all(self.dag.final, "Removed by DAGMan: the DAG was removed")
        elif eng.services_busy():
            services = f"DAGManJobId == {self.job[0]} && DAGLifetimeJob =?= true"
            await self.ad.remove(services, "DAG is exiting")
        code = 2 if self.removed else outcome.exit_code(eng)
        if code != 0 or eng.failed_nodes:
            number = rescue.last_number(self.opts.primary) + 1
            path = rescue.name(self.opts.primary, min(number, 100))
            self.out(f"Writing Rescue DAG file to {path}...")
            rescue.write(path, eng, self.opts.primary)
        self.out.status(eng)
        await self.ad.update(self.engine, force=True)
        self.files.status_file(eng, self.removed, finished=True)
        self.files.reports(eng, code, self.started, self.job, self._rescue_number, self.jobstate)
        self.out(f"**** condor_dagman (condor_DAGMAN) pid {os.getpid()} EXITING WITH STATUS {code}")
        Path(self.opts.lockfile).unlink(missing_ok=True)  # still held: no one else has it
        return code


def _words(text: str) -> set[str]:
    return {w.strip().lower() for w in re.split(r"[\s,]+", text) if w.strip()}


def _proc_end(name: str, ev: Event) -> str:
    """A node job proc's end, as HTCondor's DAGMan logs it."""
    sig, code = ev.signal(), ev.return_value()
    if sig is None and not code:
        return f"Node {name} job proc ({ev.job}) completed successfully."
    how = f"signal {sig}" if sig is not None else f"status {code}"
    return f"Node {name} job proc ({ev.job}) failed with {how}."


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _when(t: float) -> str:
    return time.strftime("%m/%d/%y %H:%M:%S", time.localtime(t))
