"""condorx's per-resource group quotas (GROUP_RESOURCE_QUOTA_<g>): the caps read from
the configuration, what the claimed slots hold of them, the limits each waiting job
names, and how a refusal reads; and, through the negotiator's core, that a group is held
to its GPUs while its cores have room."""

from __future__ import annotations

import logging
from pathlib import Path

from condorx.classad import ClassAd
from condorx.daemons.negotiator.resource_quotas import (
    ResourceQuotas,
    own_limits,
    reason,
    stamp_caps,
)
from condorx.language.config import Config, load_config
from condorx.language.negotiation import Submitter
from condorx.sim import whatif

GROUPS = ["group_ml", "group_ml.vision", "group_sim"]


def quotas(text: str) -> ResourceQuotas:
    return ResourceQuotas(Config.from_text(text), GROUPS)


def test_caps_are_resource_amounts_or_percentages_of_the_pool():
    q = quotas("GROUP_RESOURCE_QUOTA_group_ml = GPUs:8, Memory:25%\n")
    assert [(c.group, c.resource, c.amount, c.percent) for c in q.caps] == [
        ("group_ml", "GPUs", 8.0, False),
        ("group_ml", "Memory", 25.0, True),
    ]
    slots = [ClassAd({"Memory": 1000, "GPUs": 2}), ClassAd({"Memory": 3000})]
    assert q.maxima(slots) == {
        "condorx_quota_gpus.group_ml": 8.0,
        "condorx_quota_memory.group_ml": 1000.0,
    }


def test_a_bad_word_is_named_with_its_file_and_line_and_the_rest_kept(tmp_path: Path, caplog):
    conf = tmp_path / "condor_config"
    conf.write_text("X = 1\nGROUP_RESOURCE_QUOTA_group_sim = GPUs:two Cpus:4\n")
    with caplog.at_level(logging.ERROR, "condorx.negotiator"):
        q = ResourceQuotas(load_config(path=conf), GROUPS)
    assert [(c.resource, c.amount) for c in q.caps] == [("Cpus", 4.0)]
    assert f"GROUP_RESOURCE_QUOTA_group_sim ({conf}, line 2): 'GPUs:two'" in caplog.text


def test_a_cap_holds_a_group_and_every_group_below_it():
    q = quotas(
        "GROUP_RESOURCE_QUOTA_group_ml = GPUs:4\nGROUP_RESOURCE_QUOTA_group_ml.vision = GPUs:1\n"
    )
    assert [c.limit for c in q.on_way("group_ml.vision")] == [
        "condorx_quota_gpus.group_ml__vision",
        "condorx_quota_gpus.group_ml",
    ]
    assert q.on_way("group_sim") == [] and q.on_way("<none>") == []


def test_claimed_slots_hold_their_own_amounts_for_their_jobs_groups():
    q = quotas("GROUP_RESOURCE_QUOTA_group_ml = GPUs:4\n")
    slots = [
        ClassAd({"State": "Claimed", "AccountingGroup": "group_ml.vision.ann", "GPUs": 2}),
        ClassAd({"State": "Claimed", "AccountingGroup": "group_sim.bob", "GPUs": 1}),
        ClassAd({"State": "Unclaimed", "GPUs": 1}),
        ClassAd({"State": "Claimed", "RemoteUser": "group_ml.ann@pool", "GPUs": 0}),
    ]
    group_of = {"group_ml.vision.ann": "group_ml.vision", "group_sim.bob": "group_sim"}.get
    assert q.held(slots, lambda n: group_of(n) or "group_ml") == ["condorx_quota_gpus.group_ml:2"]


def test_each_waiting_job_names_its_groups_caps_once():
    q = quotas("GROUP_RESOURCE_QUOTA_group_ml = GPUs:4, Memory:100\n")
    plain = ClassAd({"RequestGPUs": 1, "RequestMemory": 10})
    own = ClassAd({"RequestGPUs": 2, "ConcurrencyLimits": "lic"})
    no_gpu = ClassAd({"RequestCpus": 1})
    s = Submitter("group_ml.ann@pool", 0.5, [plain, plain, own, no_gpu])
    stamp_caps(q, [s], lambda name: "group_ml")
    assert plain.get("ConcurrencyLimits") == (
        "condorx_quota_gpus.group_ml:1, condorx_quota_memory.group_ml:10"
    )
    assert own.get("ConcurrencyLimits") == "lic, condorx_quota_gpus.group_ml:2"
    assert "ConcurrencyLimits" not in no_gpu


def test_the_schedd_hears_the_jobs_own_limits_and_a_refusal_reads_as_configured():
    q = quotas("GROUP_RESOURCE_QUOTA_group_ml.vision = GPUs:4\n")
    assert own_limits("lic,condorx_quota_gpus.group_ml__vision:1") == "lic"
    assert own_limits("condorx_quota_gpus.group_ml__vision:1") is None
    assert own_limits("lic") == "lic" and own_limits(None) is None
    said = "concurrency limit condorx_quota_gpus.group_ml__vision reached"
    assert reason(said, q.caps) == "group group_ml.vision's GPUs quota reached"
    assert reason("no match found", q.caps) == "no match found"


def _dumps(tmp_path: Path) -> tuple[Path, Path]:
    slots = [
        f'MyType = "Machine"\nName = "slot1@m{m}"\nMachine = "m{m}"\nSlotID = 1\nCpus = 1\n'
        f"Memory = 1024\nDisk = 100000\nGPUs = 1\nStart = true\n"
        for m in range(8)
    ]
    jobs = [
        f'MyType = "Job"\nOwner = "ann"\nClusterId = 1\nProcId = {p}\nJobStatus = 1\n'
        f'JobUniverse = 5\nAccountingGroup = "group_ml.ann"\nRequestCpus = 1\n'
        f"RequestMemory = 10\nRequestDisk = 10\nRequestGPUs = 1\nRequirements = true\n"
        for p in range(8)
    ]
    (tmp_path / "s.ads").write_text("\n".join(slots))
    (tmp_path / "q.ads").write_text("\n".join(jobs))
    return tmp_path / "s.ads", tmp_path / "q.ads"


def test_a_group_is_held_to_its_gpus_while_its_cores_have_room(tmp_path):
    """Eight one-GPU slots, the group's core quota all of them: a GPU cap of 3 (or 25%
    of the pool's 8 GPUs, 2) is what runs, over cycle after cycle."""
    slots, jobs = _dumps(tmp_path)
    base = "GROUP_NAMES = group_ml\nGROUP_QUOTA_group_ml = 8\n"
    for cap, running in (("", 8), ("GPUs:3", 3), ("GPUs:25%", 2)):
        cfg = Config.from_text(base + f"GROUP_RESOURCE_QUOTA_group_ml = {cap}\n")
        o = whatif.replay(cfg, whatif.machines(cfg, slots), whatif.jobs(jobs))
        assert o.running == {"group_ml": running}, cap
        assert o.idle == ({"group_ml": 8 - running} if running < 8 else {}), cap
