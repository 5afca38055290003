"""DAGMan's rules, in-process on the engine alone (no daemons): order, throttles,
scripts, retries, failure, abort, FINAL, and recovery from a replayed log. Each rule is
HTCondor's (dag.cpp), as its manual's DAGMan chapter states it."""

from __future__ import annotations

import pytest

from condorx.dagman import outcome
from condorx.dagman.engine import Engine
from condorx.dagman.node_state import (
    DONE,
    ERROR,
    FUTILE,
    JOB_ABORTED,
    NOT_READY,
    POSTRUN,
    PRERUN,
    SUBMITTED,
    DagStatus,
    Limits,
)
from condorx.language.dag.parse import parse

SUBMIT, EXECUTE, TERMINATED, ABORTED, HELD, RELEASED = 0, 1, 5, 9, 12, 13


def engine(tmp_path, text: str, limits: Limits | None = None) -> Engine:
    (tmp_path / "x.dag").write_text(text)
    e = Engine(parse(tmp_path / "x.dag"), limits)
    e.start()
    return e


class Runner:
    """Plays the schedd: each submitted node gets the next cluster id."""

    def __init__(self, e: Engine) -> None:
        self.e = e
        self.next = 100
        self.cluster: dict[str, int] = {}

    def submit(self, most: int = 100, procs: int = 1) -> list[str]:
        names = self.e.take_submit(most)
        for name in names:
            self.next += 1
            self.cluster[name] = self.next
            self.e.submitted(name, self.next, procs)
            for p in range(procs):
                self.e.event(SUBMIT, self.next, p, {})
        return names

    def end(self, name: str, code: int = 0, proc: int = 0) -> None:
        self.e.event(EXECUTE, self.cluster[name], proc, {})
        self.e.event(TERMINATED, self.cluster[name], proc, {"return_value": code, "signal": None})


DIAMOND = (
    "JOB A a.sub\nJOB B a.sub\nJOB C a.sub\nJOB D a.sub\nPARENT A CHILD B C\nPARENT B C CHILD D\n"
)


def test_children_wait_for_all_their_parents(tmp_path):
    e = engine(tmp_path, DIAMOND)
    r = Runner(e)
    assert r.submit() == ["A"]
    assert r.submit() == []
    r.end("A")
    assert sorted(r.submit()) == ["B", "C"]
    r.end("B")
    assert r.submit() == []
    r.end("C")
    assert r.submit() == ["D"]
    r.end("D")
    assert not e.active() and outcome.exit_code(e) == 0 and e.status == DagStatus.OK
    assert e.done_nodes == outcome.counts(e)[DONE] == 4


def test_maxjobs_counts_nodes_in_the_queue(tmp_path):
    e = engine(tmp_path, "".join(f"JOB N{i} a.sub\n" for i in range(5)), Limits(max_jobs=2))
    r = Runner(e)
    assert r.submit() == ["N0", "N1"]
    r.end("N0")
    assert r.submit() == ["N2"]


def test_maxidle_stops_submitting_while_that_many_procs_are_idle(tmp_path):
    e = engine(tmp_path, "".join(f"JOB N{i} a.sub\n" for i in range(5)), Limits(max_idle=3))
    r = Runner(e)
    assert r.submit(most=1, procs=2) == ["N0"]
    assert r.submit(most=1, procs=2) == ["N1"]  # 2 idle < 3
    assert r.submit() == []  # 4 idle
    e.event(EXECUTE, r.cluster["N0"], 0, {})
    e.event(EXECUTE, r.cluster["N0"], 1, {})
    assert e.idle == 2 and r.submit(most=1) == ["N2"]


def test_a_category_throttle_holds_back_only_its_own_nodes(tmp_path):
    text = (
        "JOB A a.sub\nJOB B a.sub\nJOB C a.sub\nCATEGORY A slow\nCATEGORY B slow\nMAXJOBS slow 1\n"
    )
    e = engine(tmp_path, text)
    e.limits.categories.update(e.dag.maxjobs)
    r = Runner(e)
    assert r.submit() == ["A", "C"]
    r.end("A")
    assert r.submit() == ["B"]


def test_higher_priority_nodes_are_submitted_first(tmp_path):
    e = engine(tmp_path, "JOB A a.sub\nJOB B a.sub\nJOB C a.sub\nPRIORITY C 10\nPRIORITY B 5\n")
    assert Runner(e).submit() == ["C", "B", "A"]


def test_a_failed_pre_script_fails_the_node_and_its_descendants_cannot_run(tmp_path):
    e = engine(tmp_path, DIAMOND + "SCRIPT PRE A pre.sh\n")
    assert e.take_pre() == ["A"] and e.states["A"].status == PRERUN
    e.pre_done("A", 3)
    states = {n: s.status for n, s in e.states.items()}
    assert states == {"A": ERROR, "B": FUTILE, "C": FUTILE, "D": FUTILE}
    assert not e.active() and outcome.exit_code(e) == 1 and e.status == DagStatus.NODE_FAILED
    assert e.states["A"].error == "PRE Script failed with status 3"


def test_pre_skip_skips_the_job_and_post_and_counts_as_success(tmp_path):
    e = engine(
        tmp_path,
        "JOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\n"
        "SCRIPT PRE A p\nSCRIPT POST A q\nPRE_SKIP A 7\n",
    )
    e.take_pre()
    e.pre_done("A", 7)
    assert e.states["A"].status == DONE and e.take_post() == []
    assert Runner(e).submit() == ["B"]


def test_retry_runs_a_failed_node_again_unless_it_exits_with_the_unless_value(tmp_path):
    e = engine(tmp_path, "JOB A a.sub\nJOB B a.sub\nRETRY A 2\nRETRY B 5 UNLESS-EXIT 9\n")
    r = Runner(e)
    r.submit()
    r.end("A", 1)
    r.end("B", 9)
    assert e.states["B"].status == ERROR and e.states["B"].retries == 0
    assert r.submit() == ["A"] and e.states["A"].retries == 1
    r.end("A", 1)
    assert r.submit() == ["A"]
    r.end("A", 1)
    assert e.states["A"].status == ERROR and e.states["A"].retries == 2
    assert e.states["A"].error.endswith("(after 2 node retries)")
    assert r.submit() == [] and e.failed_nodes == 2


def test_one_failed_proc_removes_the_rest_and_fails_the_node(tmp_path):
    e = engine(tmp_path, "JOB A a.sub\n")
    r = Runner(e)
    r.submit(procs=3)
    r.end("A", 0, proc=0)
    r.end("A", 4, proc=1)
    assert e.to_remove == [
        (r.cluster["A"], f"Node Error: DAG node A ({r.cluster['A']}.1.0) failed.")
    ]
    assert e.states["A"].status == SUBMITTED
    e.event(ABORTED, r.cluster["A"], 2, {})
    assert e.states["A"].status == ERROR and e.states["A"].retval == 4


def test_the_post_script_decides_and_sees_the_jobs_return(tmp_path):
    e = engine(
        tmp_path, "JOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\nSCRIPT POST A post.sh $RETURN\n"
    )
    r = Runner(e)
    r.submit()
    r.end("A", 5)
    assert e.states["A"].status == POSTRUN and e.states["A"].job_retval == 5
    assert e.take_post() == ["A"]
    e.post_done("A", 0)
    assert e.states["A"].status == DONE and r.submit() == ["B"]


def test_a_removed_job_returns_the_aborted_value(tmp_path):
    e = engine(tmp_path, "JOB A a.sub\nSCRIPT POST A post.sh\n")
    r = Runner(e)
    r.submit()
    e.event(ABORTED, r.cluster["A"], 0, {})
    assert e.states["A"].job_retval == JOB_ABORTED == -1002


def test_maxpre_and_maxpost_bound_the_scripts_running_at_once(tmp_path):
    text = "".join(f"JOB N{i} a.sub\nSCRIPT PRE N{i} p\n" for i in range(4))
    e = engine(tmp_path, text, Limits(max_pre=2))
    assert e.take_pre() == ["N0", "N1"] and e.take_pre() == []
    e.pre_done("N0", 0)
    assert e.take_pre() == ["N2"]


def test_abort_dag_on_ends_the_dag_with_its_return_value(tmp_path):
    e = engine(
        tmp_path,
        "JOB A a.sub\nJOB B a.sub\nJOB C a.sub\nPARENT A CHILD C\nABORT-DAG-ON A 3 RETURN 17\n",
    )
    r = Runner(e)
    r.submit()
    r.end("A", 3)
    assert e.aborted == (17, DagStatus.ABORT) and outcome.exit_code(e) == 17
    assert r.submit() == [] and e.states["C"].status == NOT_READY


def test_the_final_node_runs_after_a_failure_and_its_outcome_is_the_dags(tmp_path):
    e = engine(tmp_path, "JOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\nFINAL F a.sub\n")
    r = Runner(e)
    r.submit()
    r.end("A", 1)
    assert not e.active()
    assert e.start_final() and r.submit() == ["F"]
    r.end("F", 0)
    assert not e.active() and not e.start_final()
    assert outcome.exit_code(e) == 0 and outcome.final_status(e) == DagStatus.OK


def test_done_nodes_are_not_run_and_their_children_are_ready(tmp_path):
    e = engine(tmp_path, DIAMOND.replace("JOB A a.sub", "JOB A a.sub DONE"))
    assert sorted(Runner(e).submit()) == ["B", "C"]
    assert e.done_nodes == 1


def test_recovery_takes_submitted_and_finished_jobs_from_the_log(tmp_path):
    e = engine(tmp_path, DIAMOND)
    e.recover_submit("A", 7)
    e.event(SUBMIT, 7, 0, {})
    e.event(TERMINATED, 7, 0, {"return_value": 0, "signal": None})
    e.recover_submit("B", 8)
    e.event(SUBMIT, 8, 0, {})
    assert e.states["A"].status == DONE and e.states["B"].status == SUBMITTED
    r = Runner(e)
    assert r.submit() == ["C"]  # B is in the queue already: not submitted twice
    e.event(TERMINATED, 8, 0, {"return_value": 0, "signal": None})
    r.end("C")
    assert r.submit() == ["D"]


@pytest.mark.parametrize("held", [1, 2])
def test_held_procs_are_counted_until_released_or_ended(tmp_path, held):
    e = engine(tmp_path, "JOB A a.sub\n")
    r = Runner(e)
    r.submit(procs=2)
    for p in range(held):
        e.event(HELD, r.cluster["A"], p, {})
    assert e.held == held
    e.event(RELEASED, r.cluster["A"], 0, {})
    assert e.held == held - 1


def test_a_node_job_with_max_job_holds_procs_held_is_removed(tmp_path):
    e = engine(tmp_path, "JOB A a.sub\n", Limits(max_holds=2))
    r = Runner(e)
    r.submit(procs=3)
    e.event(HELD, r.cluster["A"], 0, {})
    assert e.to_remove == []
    e.event(HELD, r.cluster["A"], 1, {})
    assert e.to_remove == [(r.cluster["A"], "DAG Limit: Max number of held jobs was reached.")]


def test_the_others_wait_for_the_provisioner_to_be_ready(tmp_path):
    e = engine(tmp_path, "PROVISIONER P p.sub\nJOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\n")
    r = Runner(e)
    assert r.submit() == ["P"]
    assert r.submit() == [] and e.active()
    e.provisioning_complete()
    assert r.submit() == ["A"]
    r.end("A")
    assert r.submit() == ["B"]
    r.end("B")
    r.end("P")
    assert not e.active() and outcome.exit_code(e) == 0


def test_a_provisioner_that_ends_before_it_is_ready_fails_the_dag(tmp_path):
    e = engine(tmp_path, "PROVISIONER P p.sub\nJOB A a.sub\n")
    r = Runner(e)
    r.submit()
    r.end("P")
    assert e.aborted == (1, DagStatus.ERROR) and outcome.exit_code(e) == 1
    assert r.submit() == [] and not e.active()


def test_a_failed_submission_fails_the_node_and_gives_up_its_retries(tmp_path):
    # HTCondor's ProcessFailedSubmit: PoisonRetries, then the POST script (which sees
    # $RETURN -1001) or the node's failure; its children are futile.
    e = engine(tmp_path, "JOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\nRETRY A 3\n")
    assert e.take_submit(10) == ["A"]
    e.submit_failed("A", "Failed to open submit file")
    assert e.states["A"].status == ERROR and e.states["A"].retries == 3
    assert e.states["B"].status == FUTILE and e.take_submit(10) == []
    assert not e.active() and e.failed_nodes == 1
    e = engine(tmp_path, "JOB A a.sub\nRETRY A 3\nSCRIPT POST A post.sh $RETURN\n")
    e.take_submit(10)
    e.submit_failed("A", "Failed to open submit file")
    assert e.take_post() == ["A"] and e.states["A"].job_retval == -1001
    e.post_done("A", 1)
    assert e.states["A"].status == ERROR and e.take_submit(10) == []


def test_a_cycle_leaves_its_nodes_never_ready_and_the_rest_runs(tmp_path):
    e = engine(tmp_path, "JOB A a.sub\nJOB B a.sub\nJOB C a.sub\nPARENT A CHILD B\n" + CYCLE)
    r = Runner(e)
    assert r.submit() == ["A"]
    r.end("A")
    assert r.submit() == [] and not e.active()
    assert outcome.left_undone(e) == ["B", "C"] and e.failed_nodes == 0


CYCLE = "PARENT B CHILD C\nPARENT C CHILD B\n"
