"""The environment a job gets for its slot's custom resources, as HTCondor's starter
sets it (`SetEnvironmentForAssignedRes`, and the examples of ENVIRONMENT_FOR_Assigned<name>
in the manual)."""

from __future__ import annotations

from condorx.daemons.startd.assigned import environment
from condorx.language.config import Config

RESOURCES = "Cpus Memory Disk Swap GPUs"


def env(config: str, **slot: object) -> dict[str, str]:
    cfg = Config.from_text(config, subsystem="STARTD")
    return environment(cfg, {"MachineResources": RESOURCES, **slot})


def test_cuda_devices_are_the_numbers_of_the_assigned_gpus_by_default():
    got = env("", GPUs=2, AssignedGPUs="CUDA0, CUDA1")
    assert got == {
        "CUDA_VISIBLE_DEVICES": "0,1",
        "GPU_DEVICE_ORDINAL": "0,1",
        "_CONDOR_AssignedGPUs": "CUDA0, CUDA1",
    }


def test_a_pattern_rewrites_each_id():
    # The manual's example: VISIBLE_GPUS = gpuid:CUDA1, gpuid:CUDA2 (HTCondor's starter
    # joins the rewritten ids with a comma alone).
    got = env(
        "ENVIRONMENT_FOR_AssignedGPUs = VISIBLE_GPUS=/^/gpuid:/\n", AssignedGPUs="CUDA1, CUDA2"
    )
    assert got == {
        "VISIBLE_GPUS": "gpuid:CUDA1,gpuid:CUDA2",
        "_CONDOR_AssignedGPUs": "CUDA1, CUDA2",
    }
    groups = env("ENVIRONMENT_FOR_AssignedGPUs = IDS=#CUDA(\\d)#dev$1#\n", AssignedGPUs="CUDA3")
    assert groups["IDS"] == "dev3"


def test_a_slot_with_the_resource_but_none_assigned_gets_the_unassigned_value():
    # The manual's example, and HTCondor's default for GPUs (10000: none, to CUDA).
    unassigned = "ENVIRONMENT_FOR_AssignedGPUs = VISIBLE_GPUS\n"
    none = env(unassigned + "ENVIRONMENT_VALUE_FOR_UnAssignedGPUs = none\n", GPUs=0)
    assert none == {"VISIBLE_GPUS": "none", "_CONDOR_AssignedGPUs": "none"}
    assert env("", GPUs=0)["CUDA_VISIBLE_DEVICES"] == "10000"


def test_a_counted_resource_or_a_slot_without_resources_sets_nothing():
    cfg = Config.from_text("", subsystem="STARTD")
    assert environment(cfg, {"MachineResources": "Cpus Memory Disk Swap Cogs", "Cogs": 2}) == {}
    assert environment(cfg, {"Cpus": 1}) == {}
