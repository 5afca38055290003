"""The startd's slot table: its slots (static, partitionable and the dynamic slots carved
from them), and what their ads are made of: the machine, the policy, the readings of the
last poll (keyboard and load, benchmarks, swap) and the policy's clock.

The request handlers and the fetch-work loops share it: they find slots here, view a
slot as its policy sees it, carve dynamic slots, and apply transitions; neither reaches
into the other.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.startd import machine as mach
from condorx.daemons.startd.ads import (
    STATE_ATTRS,
    Extras,
    Measures,
    add_extras,
    fixed_key,
    fixed_part,
    private_ad,
    slot_ad,
    state_part,
    varying_part,
)
from condorx.daemons.startd.drain_estimates import Estimator
from condorx.daemons.startd.inputs import CpuMeter, Inputs, Sensors
from condorx.daemons.startd.packed_part import PackedPart
from condorx.daemons.startd.policy import Policy, parsed
from condorx.daemons.startd.scope import UNKNOWN, SlotScope, reads_fixed_only
from condorx.daemons.startd.slots import Claim, Slot, layout
from condorx.daemons.startd.states import Activity, State, Step
from condorx.errors import Refusal, Refused
from condorx.language.config import Config
from condorx.transport import wire
from condorx.transport.wire import Expr

log = logging.getLogger("condorx.startd")

# The policy expressions other expressions may refer to by name.
EXPRESSIONS = ("WANT_SUSPEND", "SUSPEND", "CONTINUE", "PREEMPT", "WANT_VACATE", "KILL")


class CarveError(Refused):
    """A dynamic slot that cannot be carved; `kind` is "bad-request" or "busy"."""


class SlotTable:
    def __init__(
        self,
        cfg: Config,
        machine: mach.Machine,
        slots: list[Slot] | None = None,
        clock: Callable[[], float] = time.time,
        measured: bool = True,
    ) -> None:
        """The machine's slots: `slots`, else as the configuration lays them out. `clock`
        is the machine's (epoch seconds), a port: tests give a MockClock's. A simulated
        machine's (not `measured`) inputs are not read from this host."""
        self.cfg = cfg
        self.clock = clock
        self.machine = machine
        self.policy = Policy.from_config(cfg)
        self.estimator = Estimator(self.policy, cfg)  # what a drain would cost
        self.extras = Extras.from_config(cfg)
        self.slots = slots if slots is not None else layout(cfg, machine)
        self.update_interval = max(1, cfg.get_int("UPDATE_INTERVAL", 300))
        override = cfg.get("STARTD_INPUTS_OVERRIDE")
        self.sensors = Sensors(Path(override) if override else None, clock, measured)
        self.cpu = CpuMeter()
        self.inputs: Inputs = self.sensors.read()
        self.offset = self.inputs.now - clock()
        self.benchmarks: dict[str, Any] = {"LastBenchmark": 0}
        self.loads: dict[str, tuple[float, float]] = {}
        self.swap = self.sensors.swap_free_kb()
        self.sequence = 0  # UpdateSequenceNumber: one more for each advertisement
        self.drain_attrs: dict[str, Any] = {}  # what every slot's ad says while draining
        self.drain_start: str | None = None  # and its START, then (part of the fixed part)
        self._exprs = {name: ExprTree(self.policy.texts[name]) for name in EXPRESSIONS}
        self._expr_texts = {name.lower(): self.policy.texts[name] for name in EXPRESSIONS}
        self._by_state: dict[tuple[str, State, Activity], Any] = {}  # see `state_value`
        # The state part's attributes a view has as `ads.state_part` makes them: not one
        # the administrator's attributes (STARTD_ATTRS) set over.
        named = {n.lower() for n in self.extras.attrs}
        self._state_attrs = tuple(n for n in STATE_ATTRS if n.lower() not in named)
        # Slots by name and by claim id: found at once on every request's path.
        self._by_name: dict[str, Slot] = {}
        self._by_claim: dict[str, Slot] = {}
        now = self.now()
        for slot in self.slots:
            slot.entered_state = slot.entered_activity = now

    def now(self) -> float:
        """The policy's clock: the real one, moved by STARTD_INPUTS_OVERRIDE's ClockOffset."""
        return self.clock() + self.offset

    # -- finding slots --------------------------------------------------------------------

    def all_slots(self) -> list[Slot]:
        out: list[Slot] = []
        for p in self.slots:
            out.append(p)
            if p.children:
                out.extend(p.children)
        return out

    def named(self, name: object) -> Slot | None:
        found = self._by_name.get(name) if isinstance(name, str) else None
        if found is None or not _present(found):
            self._by_name = {s.name: s for s in self.all_slots()}
            found = self._by_name.get(name) if isinstance(name, str) else None
        return found

    def set_claim(self, slot: Slot, claim: Claim | None) -> None:
        """`slot` is now `claim`'s, which is found by its id at once (`claimed_by`)."""
        slot.claim = claim
        if claim is not None:
            self._by_claim[claim.id] = slot

    def claimed_by(self, claim_id: object) -> Slot | None:
        """The slot whose current claim has this id."""
        if not isinstance(claim_id, str):
            return None
        found = self._by_claim.get(claim_id)
        if (
            found is None
            or found.claim is None
            or found.claim.id != claim_id
            or not _present(found)
        ):
            # A claim is indexed as it is made (`set_claim`); claims end by many paths,
            # and the index is made again when it is wrong.
            self._by_claim = {s.claim.id: s for s in self.all_slots() if s.claim is not None}
            found = self._by_claim.get(claim_id)
        return found

    # -- readings ---------------------------------------------------------------------------

    def read(self, job_pids: dict[str, int]) -> None:
        """A poll's readings: the machine's inputs and the clock, then each slot's load
        (`job_pids`: the pid of the job each slot runs, by slot name)."""
        self.inputs = self.sensors.read()
        self.offset = self.inputs.now - self.clock()
        self._measure_loads(job_pids)

    def _measure_loads(self, pids: dict[str, int]) -> None:
        """(LoadAvg, CondorLoadAvg) of each slot: Condor's part is what its job's
        processes use; the rest of the machine's load (its owner's) goes to the first
        slots, one CPU's worth each, as HTCondor shares it out."""
        loads = self.cpu.sample(list(pids.values()), self.clock())
        condor = {name: loads.get(pid, 0.0) for name, pid in pids.items()}
        owner = self.inputs.owner_load
        if owner is None:
            owner = max(0.0, self.inputs.load_avg - sum(condor.values()))
        # Only the slots with some load are listed (the rest read (0.0, 0.0)): at
        # 100,000 simulated slots, reading them was a fifth of the poll.
        self.loads = {}
        for s in self.all_slots():
            if owner <= 0:
                break
            share = min(owner, float(max(1, s.cpus)))
            owner -= share
            c = condor.get(s.name, 0.0)
            self.loads[s.name] = (round(c + share, 3), c)
        for name, c in condor.items():
            if c and name not in self.loads:
                self.loads[name] = (round(c, 3), c)
        self.swap = self.sensors.swap_free_kb()

    # -- ads --------------------------------------------------------------------------------

    def ads(self) -> list[dict[str, Any]]:
        """Every slot's ad as advertised, from the readings of the last poll."""
        measures = self._measures()
        out = [self._ad(s, measures) for s in self.all_slots()]
        add_extras(out, self.cfg, self.extras)
        return out

    def private_ads(self, slots: list[Slot] | None = None) -> list[dict[str, Any]]:
        """The private ads of `slots` (every slot's when None): the claim id each slot
        that may be claimed by one offers (a free static slot, a partitionable one),
        read by the negotiator alone."""
        chosen = self.all_slots() if slots is None else slots
        lifetime = self.update_interval * 3
        return [
            private_ad(s, self.machine, lifetime)
            for s in chosen
            if s.kind == "Partitionable" or (s.kind == "Static" and s.claim is None)
        ]

    def advertised(self, slot: Slot) -> dict[str, Any]:
        """One slot's ad as advertised (`advertised_all`)."""
        return self.advertised_all([slot])[0]

    def advertised_all(self, slots: list[Slot]) -> list[dict[str, Any]]:
        """These slots' ads as advertised. Only their ads are built unless each carries
        other slots' attributes (STARTD_SLOT_ATTRS and kin)."""
        if self.extras.slot_attrs or self.extras.vm_attrs:
            whole = dict(zip(map(id, self.all_slots()), self.ads(), strict=True))
            return [whole[id(s)] for s in slots]
        measures = self._measures()
        out = [self._ad(s, measures) for s in slots]
        add_extras(out, self.cfg, self.extras)
        return out

    def packed_ads(self, slots: list[Slot] | None = None) -> list[bytes]:
        """The ads of `slots` (every slot's when None) as advertised, each packed alone
        (`wire.packed_array` joins them): a slot's fixed part is packed once for as
        long as it is the same (`packed_part`)."""
        chosen = self.all_slots() if slots is None else slots
        if not self.packs_apart():
            return [wire.dumps(ad) for ad in self.advertised_all(chosen)]
        measures = self._measures()
        return [self._packed(s, measures) for s in chosen]

    def packs_apart(self) -> bool:
        """Whether an ad's fixed part may be packed apart from its readings: not when
        each ad carries other slots' attributes (STARTD_SLOT_ATTRS and kin)."""
        return not (self.extras.slot_attrs or self.extras.vm_attrs)

    def _packed(self, slot: Slot, measures: Measures) -> bytes:
        key = fixed_key(slot, self.machine, self.benchmarks)
        kept = slot.packed_kept
        if kept is None or key is None or kept.key != key:
            kept = slot.packed_kept = PackedPart(key, self._fixed(slot), self.extras.attrs)
        varying = varying_part(slot, measures, self.loads.get(slot.name, (0.0, 0.0)))
        varying.update(measures.draining)
        varying.update(self.drain_attrs)
        return kept.ad(varying)

    def set_draining(self, attrs: dict[str, Any], start: str | None) -> None:
        """A drain's attributes and START for every slot's ad (none: not draining). The
        START is the fixed part's: every part kept is made anew."""
        self.drain_attrs = attrs
        self.drain_start = start
        for slot in self.all_slots():
            slot.packed_kept = slot.view_kept = None

    def _fixed(self, slot: Slot) -> dict[str, Any]:
        """The fixed part of the slot's ad (`ads.fixed_part`), with the administrator's
        attributes (STARTD_ATTRS) and, while draining, the drain's START."""
        fixed = fixed_part(slot, self.machine, self.policy, self.benchmarks)
        add_extras([fixed], self.cfg, self.extras)
        self._drain_start(fixed)
        return fixed

    def _drain_start(self, ad: dict[str, Any]) -> None:
        if self.drain_start is not None:
            ad["Start"] = ad["START"] = Expr(self.drain_start)

    def _measures(self) -> Measures:
        now = self.now()
        return Measures(
            inputs=self.inputs,
            now=now,
            benchmarks=self.benchmarks,
            virtual_memory=self.swap,
            serial=self.sequence,
            lifetime=self.update_interval * 3,
            draining=self.estimator(self.all_slots(), now, self.scope),
        )

    def _ad(self, slot: Slot, measures: Measures) -> dict[str, Any]:
        load = self.loads.get(slot.name, (0.0, 0.0))
        ad = slot_ad(slot, self.machine, self.policy, measures, load)
        ad.update(measures.draining)
        ad.update(self.drain_attrs)
        self._drain_start(ad)
        return ad

    def view(self, slot: Slot) -> ClassAd:
        """The slot's ad for evaluating its policy: as advertised, plus CurrentTime and
        the policy expressions themselves, which may name one another (the seed's
        PREEMPT reads `SUSPEND && (WANT_SUSPEND == False)`). Only this slot's ad is built
        unless the policy reads other slots' attributes (STARTD_SLOT_ATTRS and kin): this
        runs at every transition, on the path of every job."""
        if self.extras.slot_attrs or self.extras.vm_attrs:
            parts = [self.advertised(slot), {}]  # other slots' attributes: made whole
            key = None
        else:
            measures = self._measures()
            varying = varying_part(slot, measures, self.loads.get(slot.name, (0.0, 0.0)))
            varying.update(measures.draining)
            varying.update(self.drain_attrs)
            key = fixed_key(slot, self.machine, self.benchmarks)
            kept = slot.view_kept
            same = kept is not None and key is not None and kept.key == key
            fixed = kept.parts[0] if same else None
            if fixed is None:
                fixed = self._fixed(slot)
            parts = [fixed, varying]
        kept = slot.view_kept
        # What was kept for the fixed part holds while the fixed part is the same.
        known: dict[str, Any] = {}
        lower = None
        if kept is not None and kept.parts[0] is parts[0]:
            known, lower = kept.known, kept.lower
        if kept is None:
            ad = self._made(parts)
        else:
            ad = kept.ad
            for before, now in zip(kept.parts, parts, strict=True):
                if before is not now:  # a fixed part kept is as the view has it
                    _update(ad, before, now, self._exprs)
        slot.view_kept = KeptView(ad, key, parts, known, lower)
        ad["CurrentTime"] = int(self.now())
        return ad

    def _made(self, parts: list[dict[str, Any]]) -> ClassAd:
        """A view made whole from the ad's `parts` (wire maps), with the policy
        expressions over them."""
        ad = ClassAd()
        for part in parts:
            _update(ad, {}, part, {})
        for name, expr in self._exprs.items():
            ad[name] = expr
        return ad

    def scope(self, slot: Slot, view: ClassAd | None = None) -> SlotScope:
        """The slot as its policy sees it now, its view made only if an expression reads
        more than its fixed part (`view`: the view, made already)."""
        return SlotScope(self, slot, view)

    def state_value(self, slot: Slot, text: str) -> Any:
        """The value of a policy text that reads nothing of the slot but what its state
        and activity decide (`ads.state_part`: State, Activity, START) and policy
        expressions that read no more, else UNKNOWN. Every default expression is such a
        text (IS_OWNER reads START, false while Matched): it is evaluated once per state
        and activity on this machine, and needs no view, even after a transition."""
        key = (text, slot.state, slot.activity)
        value = self._by_state.get(key, _ABSENT)
        if value is _ABSENT:
            value = UNKNOWN
            whole = state_part(slot.state, slot.activity, self.policy)
            part = {n: whole[n] for n in self._state_attrs}
            if reads_fixed_only(text, {k.lower(): v for k, v in part.items()}, self._expr_texts):
                value = parsed(text).eval(self._made([part]))
            self._by_state[key] = value
        return value

    def kept_values(self, slot: Slot) -> dict[str, Any] | None:
        """The policy texts' values kept for the fixed part of the slot's view (by text;
        UNKNOWN for one that reads more); None when no view is kept, or the fixed part
        kept is not the slot's now (a transition since its last view)."""
        kept = slot.view_kept
        if (
            kept is None
            or kept.key is None
            or kept.key != fixed_key(slot, self.machine, self.benchmarks)
        ):
            return None
        return kept.known

    def fixed_value(self, slot: Slot, text: str) -> Any:
        """The value of the policy text `text` in the slot's kept view when it reads only
        the view's fixed part; UNKNOWN when it reads more."""
        kept = slot.view_kept
        if kept.lower is None:
            kept.lower = {k.lower(): v for k, v in kept.parts[0].items()}
        if not reads_fixed_only(text, kept.lower, self._expr_texts):
            return UNKNOWN
        # The job is no TARGET here: every name such a text reads is the slot's own.
        return parsed(text).eval(kept.ad)

    # -- transitions ------------------------------------------------------------------------

    def apply(self, slot: Slot, step: Step) -> float:
        """Log and make one transition of the slot's state and activity (what it asks of
        the job is the startd's to do); when it was made, on the policy's clock."""
        log.info(
            "%s: %s/%s -> %s/%s (transition %d: %s)",
            slot.name,
            slot.state,
            slot.activity,
            step.state,
            step.activity,
            step.number,
            step.cause,
        )
        now = self.now()
        slot.enter(step.state, step.activity, now)
        if step.activity != Activity.SUSPENDED:
            slot.flags.user_suspended = False  # a suspension by condor_suspend is over
        return now

    # -- dynamic slots ----------------------------------------------------------------------

    def carve(self, parent: Slot, request: dict[str, Any]) -> Slot:
        """A dynamic slot of `request`'s cpus, memory and disk, out of a partitionable
        slot's free resources; CarveError when they are not there."""
        try:
            cpus, memory, disk = (
                int(d if request.get(k) is None else request[k])
                for k, d in (("cpus", 1), ("memory", 1), ("disk", 1))
            )
        except (TypeError, ValueError):
            raise CarveError(
                Refusal.BAD_REQUEST, f"not a request of resources: {request}"
            ) from None
        # Under a consumption policy a match may take none of a resource (a licence
        # token alone), as HTCondor's; else each of cpus, memory and disk is at least 1.
        least = 0 if parent.consumption is not None else 1
        if min(cpus, memory, disk) < least:
            raise CarveError(Refusal.BAD_REQUEST, f"requests below {least} are refused: {request}")
        custom = _custom_request(parent, request)
        free = parent.free()
        if cpus > free[0] or memory > free[1] or disk > free[2]:
            raise CarveError(
                Refusal.BUSY, f"{parent.name} has {free} left, not {(cpus, memory, disk)}"
            )
        free_custom = parent.free_custom()
        if any(want > free_custom.get(n, 0) for n, want in custom.items()):
            raise CarveError(Refusal.BUSY, f"{parent.name} has {free_custom} left, not {custom}")
        parent.carvings += 1
        n = len(parent.children) + 1
        while any(c.name.startswith(f"slot{parent.id}_{n}@") for c in parent.children):
            n += 1
        now = self.now()
        child = Slot(
            id=parent.id,
            name=f"slot{parent.id}_{n}@{self.machine.slot_suffix}",
            kind="Dynamic",
            cpus=cpus,
            memory=memory,
            disk=disk,
            state=State.UNCLAIMED,
            entered_state=now,
            entered_activity=now,
            parent=parent,
            weight=parent.weight,
            custom={n: custom.get(n, 0) for n in parent.custom},
            assigned={n: tuple(parent.free_ids(n)[: custom.get(n, 0)]) for n in parent.assigned},
        )
        parent.children.append(child)
        return child


_ABSENT = object()


@dataclass
class KeptView:
    """A slot's policy view and what it was made from: the ad's fixed part (and what
    that was made of, `fixed_key`) and its varying part; and the values of the policy
    texts that read only the fixed part (`known`), kept while it is the same."""

    ad: ClassAd
    key: tuple[Any, ...] | None
    parts: list[dict[str, Any]]
    known: dict[str, Any] = field(default_factory=dict)
    lower: dict[str, Any] | None = None  # the fixed part by lower-case name, once asked


def _present(slot: Slot) -> bool:
    """Whether the slot is still the machine's (a dynamic slot whose claim ended is not)."""
    return slot.parent is None or slot in slot.parent.children


def _update(
    ad: ClassAd, before: dict[str, Any], now: dict[str, Any], policy: dict[str, ExprTree]
) -> None:
    """Make the view made from the ad `before` the view of the ad `now`: most of a slot's
    ad does not change from one view to the next, and setting only what did is most of
    what a poll saves. The `policy` expressions stand over the ad's attributes of the
    same names, as in a view made whole."""
    for k, v in now.items():
        old = before.get(k, _ABSENT)
        if old is v or (type(old) is type(v) and old == v) or k in policy:
            continue
        if v is None:
            if k in ad:
                del ad[k]
        else:
            ad[k] = parsed(v.text) if isinstance(v, Expr) else v
    for k in before:
        if k not in now and k in ad and k not in policy:
            del ad[k]


def _custom_request(parent: Slot, request: dict[str, Any]) -> dict[str, int]:
    """The custom resources a carving request asks for (by any case of their names)."""
    names = {n.lower(): n for n in parent.custom}
    out: dict[str, int] = {}
    for key, value in request.items():
        name = names.get(str(key).lower())
        if name is None or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise CarveError(Refusal.BAD_REQUEST, f"not a request of {name}: {value!r}")
        out[name] = int(value) + (0 if value == int(value) else 1)
    return out

