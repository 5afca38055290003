"""A slot's policy seen through its scope: an expression that reads only the fixed part
of the slot's ad (what changes with its state, claim and job) is evaluated once per
fixed part, and gives what the whole view gives; every other expression is evaluated in
the view, made only when one needs it."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_slot_table import PARTITIONABLE, table

from condorx.classad import ClassAd
from condorx.daemons.startd.ads import fixed_part, varying_part
from condorx.daemons.startd.draining import Drain
from condorx.daemons.startd.policy import parsed
from condorx.daemons.startd.scope import UNKNOWN, reads_fixed_only
from condorx.daemons.startd.slots import Claim, Slot
from condorx.daemons.startd.states import Activity, State
from condorx.daemons.startd.table import SlotTable

POLICY = "START = Memory > 100\nSUSPEND = PREEMPT\nPREEMPT = SUSPEND\n"

# Each text, and whether it reads only the slot's fixed part under POLICY ("claimed":
# only when the slot is claimed).
TEXTS = [
    ("(START =?= false)", True),  # the seed's IS_OWNER, through the slot's START
    ("true", True),
    ('State == "Claimed" && Activity == "Busy"', True),
    ("MY.Start && Cpus >= 1", True),
    ("SUSPEND || KILL", True),  # policy expressions that read one another, in a cycle
    ("LastBenchmark == 0", True),  # the default RunBenchmarks: the machine's benchmarks
    ("RemoteUser =?= undefined", "claimed"),  # absent when unclaimed: read from the job
    ("KeyboardIdle > 10", False),  # a reading
    ("CurrentTime > EnteredCurrentState", False),  # the clock
    ("time() > 0", False),  # a function may read the clock
    ("TARGET.ImageSize > 1", False),  # the job's
    ("NoSuchAttr =?= undefined", False),  # not the slot's: looked up in the job
]


def claimed(t: SlotTable, slot: Slot, state: State, activity: Activity) -> Slot:
    job = ClassAd({"ClusterId": 1, "ProcId": 0, "ImageSize": 5})
    slot.claim = Claim(id="c", schedd="<h:1>", user="u@x", claimed=True, job=job)
    slot.enter(state, activity, t.now())
    return slot


def states(t: SlotTable) -> list[Slot]:
    a, b, c = t.slots
    claimed(t, b, State.CLAIMED, Activity.BUSY)
    c.enter(State.MATCHED, Activity.IDLE, t.now())  # START reads false here
    return [a, b, c]


@pytest.mark.parametrize(("text", "fixed_only"), TEXTS)
def test_a_kept_value_is_the_views_and_kept_only_when_the_text_reads_the_fixed_part(
    tmp_path: Path, text: str, fixed_only: bool | str
):
    t = table(tmp_path, "NUM_SLOTS = 3\n" + POLICY)
    for slot in states(t):
        view = t.view(slot)
        kept = t.scope(slot).kept_value(text)
        expected = slot.claim is not None if fixed_only == "claimed" else fixed_only
        assert (kept is not UNKNOWN) == expected, slot.state
        if expected:
            job = slot.claim.job if slot.claim is not None else None
            assert kept == parsed(text).eval(view, job)


def test_a_kept_value_follows_the_slots_state(tmp_path: Path):
    t = table(tmp_path, "NUM_SLOTS = 1\n" + POLICY)
    (slot,) = t.slots
    is_owner = "(START =?= false)"
    assert t.scope(slot).kept_value(is_owner) is UNKNOWN  # no view made yet
    t.view(slot)
    assert t.scope(slot).kept_value(is_owner) is False
    slot.enter(State.MATCHED, Activity.IDLE, t.now())  # START is false while Matched
    assert (
        t.scope(slot).kept_value(is_owner) is UNKNOWN
    )  # the fixed part kept is not the slot's now
    assert t.scope(slot).eval_text(is_owner, None) is True  # START is false: no view needed
    t.view(slot)
    assert t.scope(slot).kept_value(is_owner) is True


def test_a_kept_value_follows_the_machines_benchmarks(tmp_path: Path):
    # Every unclaimed slot asks RunBenchmarks (`LastBenchmark == 0`) at every poll: its
    # value is kept until the benchmarks run, then worked out again.
    t = table(tmp_path, "NUM_SLOTS = 1\n")
    (slot,) = t.slots
    run_benchmarks = "LastBenchmark == 0"
    t.view(slot)
    assert t.scope(slot).kept_value(run_benchmarks) is True
    t.benchmarks = {"Mips": 3000, "KFlops": 900000, "LastBenchmark": int(t.now())}
    assert t.scope(slot).kept_value(run_benchmarks) is UNKNOWN  # kept for the old ones
    assert t.scope(slot).eval_text(run_benchmarks, None) is False
    assert t.scope(slot).kept_value(run_benchmarks) is False
    assert t.advertised(slot)["LastBenchmark"] == t.benchmarks["LastBenchmark"]


def test_a_scope_makes_the_view_only_for_an_expression_that_needs_it(tmp_path: Path):
    t = table(tmp_path, "NUM_SLOTS = 1\n" + POLICY)
    (slot,) = t.slots
    made = []
    view = t.view
    t.view = lambda s: made.append(s) or view(s)  # type: ignore[method-assign]
    t.scope(slot).eval_text("(START =?= false)", None)
    assert len(made) == 1  # the first: nothing kept yet
    scope = t.scope(slot)
    assert [t.policy.holds(n, scope) for n in ("IS_OWNER", "SUSPEND", "KILL")] == [False] * 3
    assert t.policy.retirement_time(scope, None) == 0.0
    assert len(made) == 1
    assert scope.eval_text("KeyboardIdle >= 0", None) is True
    assert scope.eval_text("CurrentTime > 0", None) is True
    assert len(made) == 2  # once for the scope, for both


def test_the_fixed_and_varying_parts_share_no_attribute(tmp_path: Path):
    # What reads_fixed_only rests on: a name of the fixed part is never set over by the
    # varying part (with a drain's attributes), whatever the slot (static,
    # partitionable, dynamic, claimed).
    drain = Drain.asked("graceful", "resume", "test", 0.0).ad()
    for t in (
        table(tmp_path, "NUM_SLOTS = 2\n"),
        table(tmp_path, PARTITIONABLE),
    ):
        slots = t.slots
        if slots[0].kind == "Partitionable":
            slots = [*slots, t.carve(slots[0], {"cpus": 1, "memory": 512})]
        claimed(t, slots[-1], State.CLAIMED, Activity.BUSY)
        for slot in slots:
            fixed = {k.lower() for k in fixed_part(slot, t.machine, t.policy, t.benchmarks)}
            varying = {k.lower() for k in varying_part(slot, t._measures(), (0.0, 0.0))}
            varying |= {k.lower() for k in drain}
            assert not fixed & varying, slot.name


def test_a_text_with_a_call_or_another_scope_is_never_fixed():
    fixed = {"memory": 10, "start": True}
    assert reads_fixed_only("Memory > 1 && START", fixed, {})
    assert not reads_fixed_only("ifThenElse(Memory > 1, true, false)", fixed, {})
    assert not reads_fixed_only("TARGET.Memory > 1", fixed, {})
    assert not reads_fixed_only("Other > 1", fixed, {"kill": "Other"})
    for scope in ("Other", "TARGET", "parent", "MY"):
        assert not reads_fixed_only(f"{scope} =?= undefined", fixed, {})
    assert reads_fixed_only("KILL", fixed, {"kill": "Memory > 1"})
    assert not reads_fixed_only("KILL", fixed, {"kill": "Disk > 1"})


def test_a_text_reading_only_what_the_state_decides_needs_no_view(tmp_path: Path):
    # Every default expression reads nothing of the slot but what its state and activity
    # decide (IS_OWNER reads START, false while Matched): after a transition, the policy
    # is evaluated with no view made, and says what the whole view says.
    t = table(tmp_path, "NUM_SLOTS = 1\nKILL = SUSPEND\nSUSPEND = false\n")
    (slot,) = t.slots
    names = ("IS_OWNER", "START", "SUSPEND", "PREEMPT", "KILL", "CONTINUE", "RANK")
    made = []
    view = t.view
    t.view = lambda s: made.append(s) or view(s)  # type: ignore[method-assign]
    for state, activity, expected in [
        (State.UNCLAIMED, Activity.IDLE, [False, True, False, False, False, True, 0.0]),
        (State.MATCHED, Activity.IDLE, [True, True, False, False, False, True, 0.0]),
        (State.PREEMPTING, Activity.VACATING, [True, True, False, False, False, True, 0.0]),
    ]:
        slot.enter(state, activity, t.now())
        scope = t.scope(slot)
        assert [t.policy.value(n, scope) for n in names] == expected, state
        assert made == []
        assert [t.policy.value(n, view(slot)) for n in names] == expected, state
    for text in ("Memory > 1", "EnteredCurrentState > 0", "time() > 0", "TARGET.X =?= 1"):
        assert t.state_value(slot, text) is UNKNOWN, text
    assert t.state_value(slot, 'KILL || State == "Preempting"') is True


def test_an_administrators_attribute_named_start_is_read_from_the_view(tmp_path: Path):
    # STARTD_ATTRS may set START in every slot's ad: then the state does not decide it.
    t = table(tmp_path, "NUM_SLOTS = 1\nSTARTD_ATTRS = START\n")
    (slot,) = t.slots
    assert t.state_value(slot, "(START =?= false)") is UNKNOWN
    assert t.state_value(slot, 'KILL || State == "Owner"') is True
