"""The accounting metaknobs read as HTCondor's own reader reads them: each knob they set,
from condorx's reader and from `htcondor2.param` (HTCondor 25's, in a process of its own
with the same CONDOR_CONFIG), byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from condorx.language.config import ConfigError, load_config

KNOBS = [
    "JOB_TRANSFORM_NAMES",
    "JOB_TRANSFORM_AssignAccountingGroup",
    "SCHEDD_CLASSAD_USER_MAP_NAMES",
    "CLASSAD_USER_MAPFILE_AssignAccountingGroup",
    "CLASSAD_USER_MAPFILE_Projects",
    "SUBMIT_REQUIREMENT_NAMES",
    "SUBMIT_REQUIREMENT_CheckRequestedGroup",
    "SUBMIT_REQUIREMENT_CheckRequestedGroup_REASON",
    "SUBMIT_REQUIREMENT_AssignAccountingGroup",
    "SUBMIT_REQUIREMENT_AssignAccountingGroup_REASON",
    "IMMUTABLE_JOB_ATTRS",
]

ORACLE = """
import json, sys
import htcondor2
print(json.dumps({n: htcondor2.param.get(n) for n in json.loads(sys.argv[1])}))
"""


def htcondor_says(config: Path, knobs: list[str] = KNOBS) -> dict[str, str | None]:
    env = {**os.environ, "CONDOR_CONFIG": str(config)}
    env.pop("CONDORX_CONFIG", None)
    r = subprocess.run(
        [sys.executable, "-c", ORACLE, json.dumps(knobs)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "uses",
    [
        "use FEATURE : AssignAccountingGroup($(DIR)/groups.map)",
        "use FEATURE : AssignAccountingGroup($(DIR)/groups.map, false)",
        "use FEATURE : AssignAccountingGroup($(DIR)/groups.map, True)\n"
        "use FEATURE : ScheddUsermapFile(Projects, $(DIR)/projects.map)",
    ],
)
def test_the_accounting_metaknobs_set_what_htcondor_sets(tmp_path, uses):
    config = tmp_path / "condor_config"
    config.write_text(f"DIR = {tmp_path}\n{uses}\n")
    env = {"CONDORX_CONFIG": str(config), "HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    ours = load_config(subsystem="SCHEDD", environ=env)
    theirs = htcondor_says(config)
    assert theirs["JOB_TRANSFORM_NAMES"]  # the oracle read the file
    assert {n: ours.get(n) for n in KNOBS} == theirs


@pytest.mark.parametrize(
    "uses, message",
    [
        ("use FEATURE : AssignAccountingGroup", "AssignAccountingGroup requires a map_file"),
        ("use FEATURE : ScheddUsermapFile(OnlyAName)", "requires 2 arguments"),
    ],
)
def test_a_metaknob_without_its_arguments_is_an_error(tmp_path, uses, message):
    config = tmp_path / "condor_config"
    config.write_text(uses + "\n")
    env = {"CONDORX_CONFIG": str(config), "HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    with pytest.raises(ConfigError) as e:
        load_config(subsystem="SCHEDD", environ=env)
    assert message in str(e.value)


@pytest.mark.parametrize(
    "uses",
    [
        "use FEATURE : StaticSlots",
        "use FEATURE : StaticSlots(2, 4, cpus=2, mem=25%)",
        "use FEATURE : StaticSlots(1, 6)\nuse FEATURE : PartitionableSlot(2, 50%)",
    ],
)
def test_the_slot_metaknobs_set_what_htcondor_sets(tmp_path, uses):
    knobs = [
        "NUM_SLOTS_TYPE_1",
        "SLOT_TYPE_1",
        "SLOT_TYPE_1_PARTITIONABLE",
        "NUM_SLOTS_TYPE_2",
        "SLOT_TYPE_2",
        "SLOT_TYPE_2_PARTITIONABLE",
    ]
    config = tmp_path / "condor_config"
    config.write_text(f"NUM_CPUS = 20\n{uses}\n")
    env = {"CONDORX_CONFIG": str(config), "HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    ours = load_config(subsystem="STARTD", environ=env)
    theirs = htcondor_says(config, knobs)
    assert {n: ours.get(n) for n in knobs} == theirs
