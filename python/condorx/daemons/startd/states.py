"""The startd's state machine (manual 3.5.8): each slot's state and activity,
and the numbered transitions between them.

The rules are pure: the startd gathers what its policy expressions say about a slot at
this moment (`Facts`) and what has happened to it (`Slot` flags: a match, a claim, a job
that exited, a vacate), and `next_step` names the one transition to take now, or None.
The startd applies it (sends the job its signal, starts benchmarks ...), logs it with its
number and cause, and asks again, so a chain such as 13 (retire), 18 (preempt), 22
(back to Owner) and 1 (Unclaimed) happens within one poll.

States and activities:
  Owner/Idle, Unclaimed/Idle, Unclaimed/Benchmarking, Matched/Idle,
  Claimed/{Idle, Busy, Suspended, Retiring}, Preempting/{Vacating, Killing},
  Backfill/{Idle, Busy, Killing}, Drained/Idle.

Draining (condor_drain) is not among the seed's numbered transitions: its steps carry the
number 0 and say so in their cause.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class State(StrEnum):
    """A slot's state (manual 3.5.8.1)."""

    OWNER = "Owner"
    UNCLAIMED = "Unclaimed"
    MATCHED = "Matched"
    CLAIMED = "Claimed"
    PREEMPTING = "Preempting"
    BACKFILL = "Backfill"
    DRAINED = "Drained"


class Activity(StrEnum):
    """What a slot in its state is doing."""

    IDLE = "Idle"
    BENCHMARKING = "Benchmarking"
    BUSY = "Busy"
    SUSPENDED = "Suspended"
    RETIRING = "Retiring"
    VACATING = "Vacating"
    KILLING = "Killing"


class Action(StrEnum):
    """What the startd does with the job (or claim) as a transition is taken."""

    SUSPEND = "suspend"
    CONTINUE = "continue"
    VACATE = "vacate"
    KILL = "kill"
    BENCHMARK = "benchmark"
    BACKFILL_START = "backfill-start"
    BACKFILL_KILL = "backfill-kill"
    END_CLAIM = "end-claim"
    NEXT_CLAIM = "next-claim"


class Why(StrEnum):
    """Why a claim is being given up: it decides where Preempting leads (22-25, 30)."""

    OWNER = "owner"  # PREEMPT, START false, IsOwner: the machine's owner wants it back
    VACATE = "vacate"  # condor_vacate
    SHUTDOWN = "shutdown"  # the startd is stopping
    WORKLIFE = "worklife"  # CLAIM_WORKLIFE is over
    RELEASED = "released"  # the schedd gave the claim up, or its connection closed
    BETTER_MATCH = "better-match"  # a match the slot ranks higher, or of a user of higher priority
    NO_WORK = "no-work"  # a claim of fetched work found no more work (manual 4.4)
    DRAIN = "drain"  # condor_drain

    @property
    def keeps_claim(self) -> bool:
        """Only a better match leaves the slot Claimed (for the new claim) afterwards."""
        return self is Why.BETTER_MATCH


class Facts(Protocol):
    """What the slot's policy expressions and clocks say now (False when not relevant),
    as the rules read it: `facts.PolicyFacts` works each one out when first read."""

    @property
    def is_owner(self) -> bool: ...
    @property
    def start_false(self) -> bool: ...
    @property
    def run_benchmarks(self) -> bool: ...
    @property
    def want_suspend(self) -> bool: ...
    @property
    def suspend(self) -> bool: ...
    @property
    def resume(self) -> bool: ...
    @property
    def preempt(self) -> bool: ...
    @property
    def want_vacate(self) -> bool: ...
    @property
    def kill(self) -> bool: ...
    @property
    def retirement_over(self) -> bool: ...
    @property
    def match_expired(self) -> bool: ...
    @property
    def worklife_over(self) -> bool: ...
    @property
    def backfill_enabled(self) -> bool: ...
    @property
    def start_backfill(self) -> bool: ...
    @property
    def evict_backfill(self) -> bool: ...
    @property
    def draining(self) -> bool: ...


@dataclass(frozen=True)
class FixedFacts:
    """Facts given whole (the rules' tests)."""

    is_owner: bool = False
    start_false: bool = False  # START evaluates to FALSE without a job (not UNDEFINED)
    run_benchmarks: bool = False
    want_suspend: bool = False
    suspend: bool = False
    resume: bool = False  # CONTINUE
    preempt: bool = False
    want_vacate: bool = True
    kill: bool = False
    retirement_over: bool = False  # the job has run (less suspension) MaxJobRetirementTime
    match_expired: bool = False  # MATCH_TIMEOUT has passed since the match
    worklife_over: bool = False  # CLAIM_WORKLIFE has passed since the claim
    backfill_enabled: bool = False
    start_backfill: bool = False
    evict_backfill: bool = False
    draining: bool = False  # condor_drain: the slot takes no new work


@dataclass
class Flags:
    """What has happened to a slot that its state alone does not say."""

    job_running: bool = False  # the claim's starter runs a job
    # A job's start is under way (its starter being spawned): the slot is as good as
    # Busy, and no transition is taken until it is (`Driver.settle`, `Driver.started`).
    starting: bool = False
    deferred: bool = False  # a transition was asked for while the job was starting
    retiring_for: Why | None = None  # why the claim retires (Retiring, or Suspended in it)
    preempting_for: Why | None = None  # why the slot is Preempting
    vacate_requested: Why | None = None  # condor_vacate or shutdown, not yet acted on
    benchmarks_done: bool = False
    backfill_running: bool = False
    backfill_evicted: Why | None = None  # why the backfill client is being killed
    pending_match: bool = False  # matched while backfill was being killed (32)
    pending_claim: bool = False  # claimed while backfill was being killed (31)
    fast: bool = False  # no retirement, no vacating: kill now (fast vacate, lost schedd)
    better_match_gone: bool = False  # the preempting claim went away while retiring (19)
    user_suspended: bool = False  # condor_suspend: only condor_continue resumes the job
    no_retirement: bool = False  # condor_drain -quick: vacate now, without retiring


@dataclass(frozen=True)
class Step:
    number: int
    state: State
    activity: Activity
    cause: str
    action: Action | None = None  # what the startd does with it (None: nothing)


def next_step(state: State, activity: Activity, f: Facts, flags: Flags) -> Step | None:
    """The transition the slot takes now, if any."""
    rule = _RULES.get(state)
    return rule(activity, f, flags) if rule is not None else None


DRAINED = Step(0, State.DRAINED, Activity.IDLE, "draining: the slot takes no new work")


def _owner(activity: Activity, f: Facts, flags: Flags) -> Step | None:
    if f.draining:
        return DRAINED
    if not f.is_owner:
        return Step(1, State.UNCLAIMED, Activity.IDLE, "IsOwner is no longer true")
    return None


def _unclaimed(activity: Activity, f: Facts, flags: Flags) -> Step | None:
    if activity == Activity.BENCHMARKING:
        if flags.benchmarks_done:
            flags.benchmarks_done = False
            return Step(4, State.UNCLAIMED, Activity.IDLE, "the benchmarks are done")
        return None
    if f.draining:
        return DRAINED
    if f.is_owner:
        return Step(2, State.OWNER, Activity.IDLE, "IsOwner is true")
    if f.run_benchmarks:
        return Step(
            3, State.UNCLAIMED, Activity.BENCHMARKING, "RunBenchmarks is true", Action.BENCHMARK
        )
    if f.backfill_enabled and f.start_backfill:
        return Step(7, State.BACKFILL, Activity.IDLE, "START_BACKFILL is true")
    return None


def _matched(activity: Activity, f: Facts, flags: Flags) -> Step | None:
    if f.start_false:
        return Step(8, State.OWNER, Activity.IDLE, "START is false", Action.END_CLAIM)
    if f.match_expired:
        return Step(
            8, State.OWNER, Activity.IDLE, "not claimed within MATCH_TIMEOUT", Action.END_CLAIM
        )
    return None


def _claimed(activity: Activity, f: Facts, flags: Flags) -> Step | None:
    if activity == Activity.IDLE:
        return _claimed_idle(f, flags)
    if activity == Activity.BUSY:
        return _claimed_busy(f, flags)
    if activity == Activity.SUSPENDED:
        return _claimed_suspended(f, flags)
    if activity == Activity.RETIRING:
        return _claimed_retiring(f, flags)
    return None


def _claimed_idle(f: Facts, flags: Flags) -> Step | None:
    why = flags.vacate_requested
    cause = _retire_cause(why) if why is not None else None
    if cause is None and f.start_false:
        why, cause = Why.OWNER, "START is false"
    if cause is None and f.worklife_over:
        why, cause = Why.WORKLIFE, "CLAIM_WORKLIFE is over"
    if cause is None and f.match_expired:  # a preempting match whose schedd never came
        why, cause = Why.RELEASED, "the claim was not taken up within MATCH_TIMEOUT"
    if why is None or cause is None:
        return None
    flags.preempting_for, flags.vacate_requested = why, None
    return _preempt(10, f, cause)


def _preempt(number: int, f: Facts, cause: str) -> Step:
    if f.want_vacate:
        return Step(number, State.PREEMPTING, Activity.VACATING, cause, Action.VACATE)
    return Step(
        number, State.PREEMPTING, Activity.KILLING, f"{cause}; WANT_VACATE is false", Action.KILL
    )


def _claimed_busy(f: Facts, flags: Flags) -> Step | None:
    if not flags.job_running:
        return Step(12, State.CLAIMED, Activity.IDLE, "the job exited")
    if flags.vacate_requested is not None:
        why = flags.vacate_requested
        flags.vacate_requested = None
        flags.retiring_for = why
        return Step(13, State.CLAIMED, Activity.RETIRING, _retire_cause(why))
    if f.want_suspend:
        if f.suspend:
            return Step(
                14,
                State.CLAIMED,
                Activity.SUSPENDED,
                "WANT_SUSPEND and SUSPEND are true",
                Action.SUSPEND,
            )
        return None
    if f.preempt:
        flags.retiring_for = Why.OWNER
        return Step(13, State.CLAIMED, Activity.RETIRING, "PREEMPT is true (WANT_SUSPEND is false)")
    return None


def _retire_cause(why: Why) -> str:
    return {
        Why.VACATE: "condor_vacate",
        Why.SHUTDOWN: "the startd is shutting down",
        Why.BETTER_MATCH: "a better match",
        Why.OWNER: "PREEMPT is true",
        Why.WORKLIFE: "CLAIM_WORKLIFE is over",
        Why.RELEASED: "the schedd released the claim",
        Why.NO_WORK: "no more fetched work",
        Why.DRAIN: "the startd is draining",
    }[why]


def _claimed_suspended(f: Facts, flags: Flags) -> Step | None:
    if not flags.job_running:
        return Step(12, State.CLAIMED, Activity.IDLE, "the job exited")
    if flags.retiring_for is not None and f.retirement_over:
        flags.preempting_for = flags.retiring_for
        return _preempt(17, f, "the retirement time is over while suspended")
    if flags.vacate_requested is not None and flags.retiring_for is None:
        flags.retiring_for, flags.vacate_requested = flags.vacate_requested, None
        return Step(
            16, State.CLAIMED, Activity.RETIRING, _retire_cause(flags.retiring_for), Action.CONTINUE
        )
    if f.resume and not flags.user_suspended:
        if flags.retiring_for is not None:
            return Step(
                16, State.CLAIMED, Activity.RETIRING, "CONTINUE is true (retiring)", Action.CONTINUE
            )
        return Step(15, State.CLAIMED, Activity.BUSY, "CONTINUE is true", Action.CONTINUE)
    if f.preempt and flags.retiring_for is None:
        flags.retiring_for = Why.OWNER
        return Step(16, State.CLAIMED, Activity.RETIRING, "PREEMPT is true", Action.CONTINUE)
    return None


def _claimed_retiring(f: Facts, flags: Flags) -> Step | None:
    why = flags.retiring_for or Why.OWNER
    if not flags.job_running:
        flags.preempting_for = why
        return _preempt(18, f, "the job finished while retiring")
    if f.retirement_over:
        flags.preempting_for = why
        return _preempt(18, f, "the job has run MaxJobRetirementTime")
    if f.want_suspend and f.suspend:
        return Step(
            20,
            State.CLAIMED,
            Activity.SUSPENDED,
            "WANT_SUSPEND and SUSPEND are true",
            Action.SUSPEND,
        )
    if why is Why.DRAIN and not f.draining:
        flags.retiring_for = None
        return Step(19, State.CLAIMED, Activity.BUSY, "draining was cancelled")
    if why is Why.BETTER_MATCH and flags.better_match_gone:
        # Only a retirement for a preempting claim can be undone, not one for the owner.
        flags.retiring_for, flags.better_match_gone = None, False
        return Step(19, State.CLAIMED, Activity.BUSY, "the preempting claim went away")
    return None


def _preempting(activity: Activity, f: Facts, flags: Flags) -> Step | None:
    why = flags.preempting_for or Why.OWNER
    if not flags.job_running:
        if why.keeps_claim:
            number = 23 if activity == Activity.VACATING else 24
            cause = "the job is gone; the slot is the better match's"
            return Step(number, State.CLAIMED, Activity.IDLE, cause, Action.NEXT_CLAIM)
        number = 22 if activity == Activity.VACATING else 25
        return Step(
            number, State.OWNER, Activity.IDLE, f"the job is gone ({why.value})", Action.END_CLAIM
        )
    if activity == Activity.VACATING and f.kill:
        return Step(21, State.PREEMPTING, Activity.KILLING, "KILL is true", Action.KILL)
    return None


def _backfill(activity: Activity, f: Facts, flags: Flags) -> Step | None:
    if activity == Activity.KILLING:
        if not flags.backfill_running:
            return Step(
                29, State.BACKFILL, Activity.IDLE, "the backfill client is gone from the slot"
            )
        return None
    if activity == Activity.BUSY:
        if not flags.backfill_running:
            return Step(27, State.BACKFILL, Activity.IDLE, "the backfill client exited on its own")
        eviction = _backfill_eviction(f, flags)
        if eviction is not None:
            flags.backfill_evicted = eviction[0]
            return Step(28, State.BACKFILL, Activity.KILLING, eviction[1], Action.BACKFILL_KILL)
        return None
    # Backfill/Idle: after a kill, go where its cause leads; else (re)start the client.
    if flags.pending_claim:
        flags.pending_claim = False
        return Step(
            31, State.CLAIMED, Activity.IDLE, "claimed while the backfill client was stopping"
        )
    if flags.pending_match:
        flags.pending_match = False
        return Step(
            32, State.MATCHED, Activity.IDLE, "matched while the backfill client was stopping"
        )
    if flags.backfill_evicted is not None:
        gone_for = flags.backfill_evicted
        flags.backfill_evicted = None
        return Step(
            30, State.OWNER, Activity.IDLE, f"the backfill client is gone ({gone_for.value})"
        )
    eviction = _backfill_eviction(f, flags)
    if eviction is not None:
        return Step(30, State.OWNER, Activity.IDLE, eviction[1])
    if flags.backfill_running:
        return Step(26, State.BACKFILL, Activity.BUSY, "the backfill client is running")
    return Step(
        26, State.BACKFILL, Activity.BUSY, "the backfill client is starting", Action.BACKFILL_START
    )


def _backfill_eviction(f: Facts, flags: Flags) -> tuple[Why, str] | None:
    if flags.pending_claim or flags.pending_match:
        return Why.BETTER_MATCH, "a job matched the slot"
    if flags.vacate_requested is not None:
        why = flags.vacate_requested
        flags.vacate_requested = None
        return why, _retire_cause(why)
    if f.evict_backfill:
        return Why.OWNER, "EVICT_BACKFILL is true"
    if not f.backfill_enabled:
        return Why.OWNER, "backfill is off (or its client cannot start)"
    return None


def _drained(activity: Activity, f: Facts, flags: Flags) -> Step | None:
    if not f.draining:
        return Step(0, State.OWNER, Activity.IDLE, "draining is over")
    if f.match_expired:  # a match let in by the drain's START (condor_drain -start)
        return Step(
            0, State.DRAINED, Activity.IDLE, "not claimed within MATCH_TIMEOUT", Action.END_CLAIM
        )
    return None


_RULES = {
    State.DRAINED: _drained,
    State.OWNER: _owner,
    State.UNCLAIMED: _unclaimed,
    State.MATCHED: _matched,
    State.CLAIMED: _claimed,
    State.PREEMPTING: _preempting,
    State.BACKFILL: _backfill,
}

# Protocol transitions, taken by the startd's command handlers rather than by a poll.
MATCHED = Step(6, State.MATCHED, Activity.IDLE, "the negotiator matched the slot")
CLAIMED_DIRECTLY = Step(
    5, State.CLAIMED, Activity.IDLE, "a schedd claimed it by the claim id it offers"
)
# condor_now's claim, carved from the claims it coalesced (Unclaimed to Claimed, as 5).
COALESCED = Step(5, State.CLAIMED, Activity.IDLE, "condor_now's claim coalesced it")
CLAIMED = Step(9, State.CLAIMED, Activity.IDLE, "the matched schedd claimed it")
ACTIVATED = Step(11, State.CLAIMED, Activity.BUSY, "the schedd started a job")
ACTIVATED_FETCHED = Step(11, State.CLAIMED, Activity.BUSY, "a fetched job started")
FETCHED = Step(5, State.CLAIMED, Activity.IDLE, "fetched work was accepted")
USER_SUSPENDED = Step(14, State.CLAIMED, Activity.SUSPENDED, "condor_suspend")
USER_CONTINUED = Step(15, State.CLAIMED, Activity.BUSY, "condor_continue")


def match_given_up(cause: str) -> Step:
    """A match not yet claimed, let go at once (8): a shutdown or a drain."""
    return Step(8, State.OWNER, Activity.IDLE, cause, Action.END_CLAIM)
