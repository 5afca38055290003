"""The startd's slot table in-process: a partitionable slot carved into dynamic slots
until it has nothing left, slots found by name and by claim, each slot's ad as the
policy sees it, and the clock moved by STARTD_INPUTS_OVERRIDE's ClockOffset."""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path

import pytest

from condorx.daemons.startd.machine import Machine, custom_resources
from condorx.daemons.startd.slots import Claim
from condorx.daemons.startd.states import Step
from condorx.daemons.startd.table import CarveError, SlotTable
from condorx.errors import Refused
from condorx.language.config import Config

MACHINE = Machine("exec.example.org", "X86_64", "LINUX", 4, 8192, 10_000_000)
PARTITIONABLE = """
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_1 = 100%
SLOT_TYPE_1_PARTITIONABLE = true
START = TARGET.RequestMemory <= MY.Memory
"""


def table(tmp_path: Path, text: str, inputs: str = "", machine: Machine = MACHINE) -> SlotTable:
    override = tmp_path / "inputs"
    override.write_text(inputs)
    cfg = Config.from_text(text + f"STARTD_INPUTS_OVERRIDE = {override}\n", subsystem="STARTD")
    return SlotTable(cfg, machine)


def test_a_partitionable_slot_is_carved_until_nothing_is_left(tmp_path: Path):
    t = table(tmp_path, PARTITIONABLE)
    (parent,) = t.slots
    assert (parent.kind, parent.cpus, parent.memory) == ("Partitionable", 4, 8192)
    a = t.carve(parent, {"cpus": 1, "memory": 1024, "disk": 1000})
    b = t.carve(parent, {"cpus": 3, "memory": 2048, "disk": 1000})
    assert [a.name, b.name] == ["slot1_1@exec.example.org", "slot1_2@exec.example.org"]
    assert parent.free() == (0, 5120, 10_000_000 - 2000)
    with pytest.raises(CarveError, match="has .* left") as caught:
        t.carve(parent, {"cpus": 1})
    assert caught.value.kind == "busy" and isinstance(caught.value, Refused)
    assert [s.name for s in t.all_slots()] == [parent.name, a.name, b.name]
    # Never a name still in use: with slot1_1 gone and slot1_2 left, the next is slot1_3.
    parent.children.remove(a)
    assert t.carve(parent, {"cpus": 1}).name == "slot1_3@exec.example.org"


@pytest.mark.parametrize(
    ("request_", "kind"),
    [({"cpus": "many"}, "bad-request"), ({"memory": -5}, "bad-request"), ({"cpus": 5}, "busy")],
)
def test_a_request_that_cannot_be_carved_says_why(tmp_path: Path, request_, kind: str):
    t = table(tmp_path, PARTITIONABLE)
    with pytest.raises(CarveError) as caught:
        t.carve(t.slots[0], request_)
    assert caught.value.kind == kind
    assert t.slots[0].children == []


def test_slots_are_found_by_name_and_by_claim(tmp_path: Path):
    t = table(tmp_path, "NUM_SLOTS = 2\n")
    one, two = t.slots
    t.set_claim(two, Claim(id="c-2", schedd="<h:1>", user="alice", matched_at=0.0))
    assert t.named("slot2@exec.example.org") is two and t.named("slot9@x") is None
    assert t.claimed_by("c-2") is two and t.claimed_by("c-1") is None
    # A claim given some other way is found too, and one that has ended is not.
    one.claim = Claim(id="c-1", schedd="<h:1>", user="bob", matched_at=0.0)
    t.set_claim(two, Claim(id="c-3", schedd="<h:1>", user="alice", matched_at=0.0))
    assert t.claimed_by("c-1") is one and t.claimed_by("c-3") is two
    assert t.claimed_by("c-2") is None
    t.set_claim(two, None)
    assert t.claimed_by("c-3") is None and t.claimed_by(None) is None
    assert (one.cpus, two.cpus, one.memory) == (2, 2, 4096)


def test_the_view_is_the_ad_with_the_policy_and_the_moved_clock(tmp_path: Path):
    t = table(tmp_path, PARTITIONABLE + "WANT_SUSPEND = false\n", "ClockOffset = 3600\n")
    view = t.view(t.slots[0])
    assert view["Name"] == "slot1@exec.example.org" and view["Memory"] == 8192
    assert abs(view["CurrentTime"] - (time.time() + 3600)) < 5
    assert view.eval("WANT_SUSPEND") is False  # the policy's expressions, by name
    assert t.advertised(t.slots[0])["Cpus"] == 4


def test_a_transition_is_entered_on_the_policys_clock_and_logged(tmp_path: Path, caplog):
    t = table(tmp_path, "NUM_SLOTS = 1\n", "ClockOffset = 7200\n")
    slot = t.slots[0]
    slot.flags.user_suspended = True
    with caplog.at_level(logging.INFO, "condorx.startd"):
        when = t.apply(slot, Step(1, "Unclaimed", "Idle", "IsOwner is false"))
    assert (slot.state, slot.activity) == ("Unclaimed", "Idle")
    assert slot.entered_state == when and abs(when - (time.time() + 7200)) < 5
    assert not slot.flags.user_suspended
    assert "Owner/Idle -> Unclaimed/Idle (transition 1: IsOwner is false)" in caplog.text


GPUS = """
MACHINE_RESOURCE_GPUs = CUDA0, CUDA1, CUDA2, CUDA3
"""


def test_gpus_are_carved_with_their_ids_and_the_partitionable_slot_shows_what_is_left(
    tmp_path: Path,
):
    t = table(tmp_path, PARTITIONABLE + GPUS, machine=with_gpus(tmp_path, PARTITIONABLE + GPUS))
    (parent,) = t.slots
    a = t.carve(parent, {"cpus": 1, "memory": 1024, "GPUs": 2})
    b = t.carve(parent, {"cpus": 1, "memory": 1024, "gpus": 1})  # any case of the name
    assert (a.assigned, b.assigned) == ({"GPUs": ("CUDA0", "CUDA1")}, {"GPUs": ("CUDA2",)})
    with pytest.raises(CarveError, match="left") as caught:
        t.carve(parent, {"cpus": 1, "GPUs": 2})
    assert caught.value.kind == "busy"
    ads = {ad["Name"]: ad for ad in t.ads()}
    p, d = ads[parent.name], ads[a.name]
    assert (p["Cpus"], p["Memory"], p["TotalSlotCpus"], p["TotalSlotMemory"]) == (2, 6144, 4, 8192)
    assert (p["GPUs"], p["TotalSlotGPUs"], p["TotalGPUs"], p["AssignedGPUs"]) == (1, 4, 4, "CUDA3")
    assert p["DetectedGPUs"] == "CUDA0, CUDA1, CUDA2, CUDA3"
    assert p["MachineResources"] == "Cpus Memory Disk Swap GPUs"
    assert (d["GPUs"], d["AssignedGPUs"], d["Cpus"]) == (2, "CUDA0, CUDA1", 1)
    # A job that asks for no GPU still fits, beside them.
    assert t.carve(parent, {"cpus": 1}).custom == {"GPUs": 0}


def test_static_slots_share_a_counted_resource_evenly_or_as_their_type_says(tmp_path: Path):
    even = "NUM_SLOTS = 2\nMACHINE_RESOURCE_Cogs = 3\n"
    t = table(tmp_path, even, machine=with_gpus(tmp_path, even))
    assert [s.custom for s in t.slots] == [{"Cogs": 2}, {"Cogs": 1}]
    assert [ad["Cogs"] for ad in t.ads()] == [2, 1]
    assert "AssignedCogs" not in t.ads()[0]  # counted, not named
    typed = (
        "MACHINE_RESOURCE_Cogs = 8\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1 = cogs=75%, 50%\n"
        "NUM_SLOTS_TYPE_2 = 1\nSLOT_TYPE_2 = cogs=2, 50%\n"
    )
    t = table(tmp_path, typed, machine=with_gpus(tmp_path, typed))
    assert [(s.cpus, s.custom) for s in t.slots] == [(2, {"Cogs": 6}), (2, {"Cogs": 2})]


def with_gpus(tmp_path: Path, text: str) -> Machine:
    """MACHINE with the custom resources the configuration `text` declares."""
    cfg = Config.from_text(text, subsystem="STARTD")
    return dataclasses.replace(MACHINE, resources=custom_resources(cfg))
