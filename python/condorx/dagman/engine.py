"""DAGMan's run of a DAG as states and counts, with no I/O: which nodes may run their PRE
script, be submitted, run their POST script, and what each job event, script exit and
submit failure does to the nodes and to the DAG. The runner (`dagman.run`) does what this
says and tells it what happened; so does recovery, replaying the nodes log.

As HTCondor's DAGMan (`dag.cpp`): a node is ready when all its parents are done; its PRE
script runs first (a failure fails the node, unless it is the PRE_SKIP value, which skips
the job and POST and counts as success); its job's procs must all exit 0, and one proc
that fails removes the rest; its POST script, when it has one, decides the node's outcome
whatever the job did ($RETURN). A failed node is retried while it has RETRY left (unless
it returned the UNLESS-EXIT value); otherwise its descendants can never run (futile). A
node that returns its ABORT-DAG-ON value ends the DAG. The FINAL node runs last, whatever
happened.
"""

from __future__ import annotations

import heapq
from collections import deque

from condorx.dagman.node_state import (
    DONE,
    ERROR,
    FUTILE,
    JOB_ABORTED,
    JOB_SKIPPED,
    NOT_READY,
    POSTRUN,
    PRERUN,
    READY,
    SUBMIT_FAILED,
    SUBMITTED,
    DagStatus,
    Limits,
    State,
)
from condorx.language.dag.model import Dag, Node


class Engine:
    def __init__(self, dag: Dag, limits: Limits | None = None) -> None:
        self.dag = dag
        self.limits = limits or Limits()
        self.states: dict[str, State] = {name: State() for name in dag.nodes}
        self._ready: list[tuple[int, int, str]] = []  # (-priority, sequence, name)
        self._seq = 0
        self.ready_count = 0
        self.services = [n for n, node in dag.nodes.items() if node.kind == "SERVICE"]
        self.pre_queue: deque[str] = deque()
        self.post_queue: deque[str] = deque()
        self.pre_running = 0
        self.post_running = 0
        self.idle = 0  # idle procs of all node jobs
        self.held = 0
        self.submitted_nodes = 0  # nodes with jobs in the queue (or being submitted)
        self.in_category: dict[str, int] = {}
        self.by_cluster: dict[int, str] = {}
        self.to_remove: list[tuple[int, str]] = []  # clusters to condor_rm, and why
        self.save_points: list[str] = []  # nodes with a SAVE_POINT_FILE that just started
        self.retried: list[str] = []  # nodes just restarted by RETRY, for the log
        # A PROVISIONER node runs first; the others wait until its job says it is ready.
        self.provisioner = next((n for n, x in dag.nodes.items() if x.kind == "PROVISIONER"), None)
        self.provisioned = self.provisioner is None
        self.failed_nodes = 0
        self.done_nodes = 0  # kept as they finish: a script's $DONE_COUNT reads it
        self.futile_nodes = 0
        self.jobs_submitted = 0
        self.jobs_completed = 0
        self.status = DagStatus.OK
        self.aborted: tuple[int, DagStatus] | None = None  # (exit code, status)
        self.final_started = False
        self.recovering = False

    # ---- start ------------------------------------------------------------------------

    def start(self) -> None:
        """Nodes marked DONE are done; the others wait for their parents."""
        for name, node in self.dag.nodes.items():
            if node.done and node.kind != "FINAL":
                self.states[name].status = DONE
                self.done_nodes += 1
        for name, node in self.dag.nodes.items():
            st = self.states[name]
            if st.status == DONE:
                continue
            st.waiting = sum(1 for p in node.parents if self.states[p].status != DONE)
        for name, node in self.dag.nodes.items():
            st = self.states[name]
            if st.status == NOT_READY and st.waiting == 0 and self._may_start(node):
                self._make_ready(name)

    def _may_start(self, node: Node) -> bool:
        """FINAL waits for the end; the others (SERVICE nodes aside) for the provisioner."""
        if node.kind == "FINAL":
            return False
        return self.provisioned or node.kind in ("PROVISIONER", "SERVICE")

    def provisioning_complete(self) -> None:
        """The provisioner's job set ProvisionerState = 2: the other nodes may start."""
        if self.provisioned:
            return
        self.provisioned = True
        for name, node in self.dag.nodes.items():
            st = self.states[name]
            if st.status == NOT_READY and st.waiting == 0 and self._may_start(node):
                self._make_ready(name)

    # ---- what may start now -----------------------------------------------------------

    def take_pre(self) -> list[str]:
        """Nodes whose PRE script may start now (within -maxpre)."""
        out = []
        while self.pre_queue and _under(self.pre_running, self.limits.max_pre):
            out.append(self.pre_queue.popleft())
            self.pre_running += 1
        return out

    def take_post(self) -> list[str]:
        out = []
        while self.post_queue and _under(self.post_running, self.limits.max_post):
            out.append(self.post_queue.popleft())
            self.post_running += 1
        return out

    def take_submit(self, most: int) -> list[str]:
        """Up to `most` ready nodes to submit now, highest priority first, within
        -maxjobs, -maxidle and the categories' MAXJOBS; they count as submitted."""
        out: list[str] = []
        held_back: list[tuple[int, int, str]] = []
        while self._ready and len(out) < most:
            if not _under(self.submitted_nodes, self.limits.max_jobs):
                break
            if not _under(self.idle, self.limits.max_idle):
                break
            item = heapq.heappop(self._ready)
            name = item[2]
            if self.states[name].status != READY or self.states[name].seq != item[1]:
                continue  # stale: recovery found it submitted already
            cat = self.dag.nodes[name].category
            if cat is not None and not _under(
                self.in_category.get(cat, 0), self.limits.categories.get(cat, 0)
            ):
                held_back.append(item)
                continue
            self._count_submitted(name, +1)
            self.states[name].status = SUBMITTED
            self.ready_count -= 1
            out.append(name)
        for item in held_back:
            heapq.heappush(self._ready, item)
        return out

    # ---- what happened ----------------------------------------------------------------

    def pre_done(self, name: str, code: int | None, sig: int | None = None) -> None:
        """A PRE script exited (`code`) or was killed (`sig`)."""
        self.pre_running -= 1
        node, st = self.dag.nodes[name], self.states[name]
        value = (code or 0) if sig is None else -sig
        st.pre_retval = value
        if value == 0:
            st.pre_done = True
            self._to_submit(name)
            return
        if node.pre_skip is not None and value == node.pre_skip:
            st.retval, st.pre_done = 0, True
            self._succeed(name)
            return
        how = f"failed with status {code}" if sig is None else f"died on signal {sig}"
        st.retval, st.error = value, f"PRE Script {how}"
        if self.limits.always_run_post and "POST" in node.scripts:
            st.job_retval, st.failed = JOB_SKIPPED, True
            self._to_post(name)
        elif not self._check_abort(name):
            self._fail(name)

    def submitted(self, name: str, cluster: int, procs: int) -> None:
        """The node's job is in the queue as `cluster`, with `procs` procs."""
        st = self.states[name]
        st.cluster, st.procs = cluster, procs
        self.by_cluster[cluster] = name

    def submit_failed(self, name: str, why: str) -> None:
        """The node's job could not be submitted (after the runner's own retries): its
        RETRYs are given up, as HTCondor's DAGMan gives them up (PoisonRetries)."""
        self._count_submitted(name, -1)
        st = self.states[name]
        st.retval, st.job_retval, st.error = SUBMIT_FAILED, SUBMIT_FAILED, why
        st.retries = max(st.retries, self.dag.nodes[name].retries)
        if "POST" in self.dag.nodes[name].scripts:
            self._to_post(name)
        else:
            self._fail(name)

    def unsubmit(self, name: str) -> None:
        """The schedd could not be reached: the node waits to be submitted again."""
        self._count_submitted(name, -1)
        self._to_submit(name)

    def noop(self, name: str) -> None:
        """A NOOP node's job "ran" and succeeded without being submitted."""
        self._count_submitted(name, -1)
        st = self.states[name]
        st.job_retval, st.retval = 0, 0
        self._job_ended(name)

    def event(self, number: int, cluster: int, proc: int, info: dict[str, int | None]) -> None:
        """A job event from the nodes log (`info`: return_value, signal)."""
        name = self.by_cluster.get(cluster)
        if name is None:
            return
        st = self.states[name]
        if number == 0:  # submitted
            st.queued += 1
            self.jobs_submitted += 1
            self._set_idle(st, proc, True)
        elif number in (4, 10, 7, 24):  # evicted, suspended, shadow exception, reconnect failed
            self._set_idle(st, proc, True)
        elif number in (1, 11):  # executing, unsuspended
            self._set_idle(st, proc, False)
        elif number == 12:  # held
            if proc not in st.run.held:
                st.run.held.add(proc)
                self.held += 1
                if 0 < self.limits.max_holds <= len(st.run.held) and st.cluster is not None:
                    why = "DAG Limit: Max number of held jobs was reached."
                    self.to_remove.append((st.cluster, why))
            self._set_idle(st, proc, True)
        elif number == 13:  # released
            self._release(st, proc)
        elif number in (5, 9) and proc not in st.run.ended:  # terminated, aborted
            self._proc_ended(name, st, number, proc, info)

    def post_done(self, name: str, code: int | None, sig: int | None = None) -> None:
        self.post_running -= 1
        self._post_result(name, code, sig)

    def _post_result(self, name: str, code: int | None, sig: int | None) -> None:
        st = self.states[name]
        if sig is None and code == 0:
            st.retval = 0
            self._succeed(name)
        else:
            st.retval = code if sig is None and code is not None else -(sig or 0)
            how = f"failed with status {code}" if sig is None else f"died on signal {sig}"
            st.error = f"POST Script {how}"
            if not self._check_abort(name):
                self._fail(name)
            return
        self._check_abort(name)

    def post_logged(self, name: str, code: int | None, sig: int | None) -> None:
        """Recovery: a POST script's end found in the nodes log."""
        st = self.states[name]
        if st.status == POSTRUN:
            if name in self.post_queue:
                self.post_queue.remove(name)
            else:
                self.post_running -= 1
        self._post_result(name, code, sig)

    # ---- where the DAG is -------------------------------------------------------------

    def active(self) -> bool:
        """Whether anything is running or waiting to (the FINAL node aside)."""
        busy = (
            self.ready_count
            + len(self.pre_queue)
            + len(self.post_queue)
            + self.pre_running
            + self.post_running
            + self.submitted_nodes
        )
        return busy > self.services_busy()

    def remove(self) -> None:
        """condor_rm of the DAGMan job: nothing new starts (the FINAL node aside); what
        runs is to be removed."""
        if self.aborted is None:
            self.aborted = (2, DagStatus.RM)
            self.status = DagStatus.RM
            self._ready.clear()
            self.ready_count = 0
            self.pre_queue.clear()

    def running(self) -> int:
        """Scripts and jobs under way (or POST scripts waiting for their turn)."""
        return self.pre_running + self.post_running + len(self.post_queue) + self.submitted_nodes

    def halt(self) -> None:
        """A halted DAG that stops: what did not run is left for the rescue DAG."""
        if self.status == DagStatus.OK:
            self.status = DagStatus.HALTED

    def services_busy(self) -> int:
        """SERVICE nodes still at work: they run beside the DAG, not in it."""
        moving = (READY, PRERUN, SUBMITTED, POSTRUN)
        return sum(1 for name in self.services if self.states[name].status in moving)

    def start_final(self) -> bool:
        """Once nothing else can run (or the DAG was aborted): the FINAL node's turn,
        with $DAG_STATUS and $FAILED_COUNT as they are now. False if there is none."""
        final = self.dag.final
        if final is None or self.final_started:
            return False
        self.final_started = True
        self._make_ready(final)
        return True

    # ---- inside -----------------------------------------------------------------------

    def _make_ready(self, name: str) -> None:
        node, st = self.dag.nodes[name], self.states[name]
        st.status = READY
        if node.save_point is not None and st.retries == 0 and not self.recovering:
            self.save_points.append(name)
        if "PRE" in node.scripts and not st.pre_done:
            st.status = PRERUN
            self.pre_queue.append(name)
            return
        self._to_submit(name)

    def _to_submit(self, name: str) -> None:
        node, st = self.dag.nodes[name], self.states[name]
        st.status = READY
        self._seq += 1
        st.seq = self._seq
        self.ready_count += 1
        heapq.heappush(self._ready, (-node.priority, self._seq, name))

    def _count_submitted(self, name: str, step: int) -> None:
        self.submitted_nodes += step
        cat = self.dag.nodes[name].category
        if cat is not None:
            self.in_category[cat] = self.in_category.get(cat, 0) + step

    def _set_idle(self, st: State, proc: int, idle: bool) -> None:
        jobs = st.run
        if idle and proc not in jobs.idle and st.status == SUBMITTED and proc not in jobs.ended:
            jobs.idle.add(proc)
            self.idle += 1
        elif not idle and proc in st.run.idle:
            st.run.idle.discard(proc)
            self.idle -= 1

    def _release(self, st: State, proc: int) -> None:
        if proc in st.run.held:
            st.run.held.discard(proc)
            self.held -= 1

    def _proc_ended(
        self, name: str, st: State, number: int, proc: int, info: dict[str, int | None]
    ) -> None:
        self._set_idle(st, proc, False)
        self._release(st, proc)
        st.run.ended.add(proc)
        st.queued -= 1
        st.run.codes[proc] = None if number == 9 else (info.get("return_value") or 0)
        self.jobs_completed += 1
        if number == 9:
            value = JOB_ABORTED
            why = f"HTCondor reported ULOG_JOB_ABORTED event for job proc ({st.cluster}.{proc}.0)"
        else:
            sig, code = info.get("signal"), info.get("return_value")
            value = -sig if sig is not None else (code or 0)
            how = f"signal {sig}" if sig is not None else f"status {code}"
            why = f"Job proc ({st.cluster}.{proc}.0) failed with {how}"
        if value != 0 and not st.failed:
            st.failed, st.retval, st.job_retval, st.error = True, value, value, why
            if st.queued > 0 or len(st.run.ended) < st.procs:
                assert st.cluster is not None
                reason = f"Node Error: DAG node {name} ({st.cluster}.{proc}.0) failed."
                self.to_remove.append((st.cluster, reason))
        elif st.job_retval is None:
            st.job_retval = 0
        if len(st.run.ended) >= max(st.procs, 1) and st.queued <= 0:
            self._count_submitted(name, -1)
            self._job_ended(name)

    def _job_ended(self, name: str) -> None:
        node, st = self.dag.nodes[name], self.states[name]
        if node.kind == "PROVISIONER" and not self.provisioned and self.aborted is None:
            # Its job left before saying the resources were ready: nothing can run.
            st.status, st.error = ERROR, "the provisioner's job exited before it was ready"
            self.failed_nodes += 1
            self.aborted = (1, DagStatus.ERROR)
            self.status = DagStatus.ERROR
            return
        if "POST" in node.scripts:
            self._to_post(name)
        elif st.failed:
            if not self._check_abort(name):
                self._fail(name)
        else:
            st.retval = 0
            self._succeed(name)
            self._check_abort(name)

    def _to_post(self, name: str) -> None:
        self.states[name].status = POSTRUN
        self.post_queue.append(name)

    def _succeed(self, name: str) -> None:
        st = self.states[name]
        st.status = DONE
        self.done_nodes += 1
        st.jobs = None  # nothing reads a done node's procs: a big DAG must not keep them
        if name == self.dag.final:
            return
        for child in self.dag.nodes[name].children:
            cst = self.states[child]
            cst.waiting -= 1
            if cst.waiting == 0 and cst.status == NOT_READY and self.aborted is None:
                if self._may_start(self.dag.nodes[child]):
                    self._make_ready(child)

    def _fail(self, name: str) -> None:
        node, st = self.dag.nodes[name], self.states[name]
        if self._may_retry(node, st) and self.aborted is None:
            self._restart(name)
            return
        st.status = ERROR
        if node.retries:
            st.error += f" (after {st.retries} node retries)"
        if node.kind == "SERVICE":
            return
        self.failed_nodes += 1
        if self.status == DagStatus.OK:  # the first error is the DAG's
            self.status = DagStatus.NODE_FAILED
        self._futile(node)

    def _may_retry(self, node: Node, st: State) -> bool:
        if st.retries >= node.retries:
            return False
        return node.retry_unless_exit is None or st.retval != node.retry_unless_exit

    def _restart(self, name: str) -> None:
        st = self.states[name]
        self.retried.append(name)
        self.states[name] = State(waiting=0, retries=st.retries + 1)
        if st.cluster is not None:
            self.by_cluster.pop(st.cluster, None)
        self._make_ready(name)

    def _futile(self, node: Node) -> None:
        stack = list(node.children)
        while stack:
            child = stack.pop()
            cst = self.states[child]
            if cst.status == NOT_READY:
                cst.status = FUTILE
                self.futile_nodes += 1
                stack.extend(self.dag.nodes[child].children)

    def _check_abort(self, name: str) -> bool:
        """ABORT-DAG-ON: this node's return value ends the DAG."""
        node, st = self.dag.nodes[name], self.states[name]
        if node.abort_on is None or st.retval != node.abort_on or self.aborted is not None:
            return False
        if node.abort_return is not None:
            code = node.abort_return
            status = DagStatus.ABORT if code != 0 else DagStatus.OK
        else:
            code, status = st.retval, DagStatus.ABORT
        if st.status not in (DONE, ERROR):
            st.status = ERROR
            self.failed_nodes += 1
        self.aborted = (code, status)
        self.status = status
        self._ready.clear()
        self.ready_count = 0
        self.pre_queue.clear()
        return True

    # ---- recovery ---------------------------------------------------------------------

    def recover_submit(self, name: str, cluster: int) -> None:
        """Recovery: the nodes log (or the queue) says the node's job was submitted as
        `cluster`; one call per proc."""
        st = self.states[name]
        if st.cluster != cluster:
            if st.status == READY:
                self.ready_count -= 1  # its queue entry is stale now
            elif st.status == PRERUN and name in self.pre_queue:
                self.pre_queue.remove(name)
                st.pre_done = True
            else:
                return  # past this point, or its parents are not done: not its job
            self._count_submitted(name, +1)
            st.status = SUBMITTED
            self.submitted(name, cluster, 0)
        st.procs += 1


def _under(count: int, limit: int) -> bool:
    return limit <= 0 or count < limit
