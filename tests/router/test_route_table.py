"""The routing table as the seed configures it: defaults overridden entry by entry, the
seed's example (backslash continuations, /* */ comments, $(MACRO)s), bad entries
reported by route and attribute, and each source of entries."""

from __future__ import annotations

from pathlib import Path

from condorx.classad import ClassAd, ExprTree
from condorx.daemons.job_router import table
from condorx.daemons.job_router.transform import routed_copy
from condorx.language.config import load_config
from condorx.testing.seeds import router_example


def config(tmp_path: Path, text: str):
    path = tmp_path / "condor_config"
    path.write_text("DAEMON_LIST = MASTER SCHEDD\n" + text)
    return load_config(path=path, environ={})


def test_the_seeds_example_loads_as_written(tmp_path):
    cfg = config(tmp_path, router_example())
    t = table.load(cfg)
    assert t.errors == []
    assert [r.name for r in t.routes] == ["Site 1", "Site 2", "Site 3"]
    assert [r.grid_resource for r in t.routes] == [
        "gt2 site1.edu/jobmanager-condor",
        "gt2 site2.edu/jobmanager-pbs",
        "condor submit.site3.edu condor.site3.edu",
    ]
    assert {(r.max_idle, r.max_jobs, r.target_universe) for r in t.routes} == {(10, 200, 9)}
    assert cfg.get_list("DAEMON_LIST")[-1] == "JOB_ROUTER"
    job = ClassAd({"WantJobRouter": True, "JobUniverse": 5, "Cmd": "/bin/true", "In": "x"})
    assert all(r.accepts(job) for r in t.routes)
    assert not t.routes[0].accepts(ClassAd({"WantJobRouter": False}))
    site2 = routed_copy(job, t.routes[1])
    assert site2["GlobusRSL"] == "(maxwalltime=1440)(jobType=single)"  # the macro, expanded
    assert site2["JobUniverse"] == 9 and site2["GridResource"] == "gt2 site2.edu/jobmanager-pbs"
    assert "WantJobRouter" not in site2 and site2["Requirements"] is True
    assert str(site2.lookup("PeriodicRemove")).startswith("JobStatus == 5 ||")
    assert routed_copy(job, t.routes[2])["remote_jobuniverse"] == 5


def test_an_entry_overrides_the_defaults_attribute_by_attribute(tmp_path):
    cfg = config(
        tmp_path,
        "JOB_ROUTER_DEFAULTS = [ MaxJobs = 7; MaxIdleJobs = 3; set_A = 1; ]\n"
        'JOB_ROUTER_ENTRIES = [ GridResource = "gt2 a"; MaxIdleJobs = 5; ] '
        '[ GridResource = "gt2 b"; ]\n',
    )
    a, b = table.load(cfg).routes
    assert (a.name, a.max_jobs, a.max_idle) == ("gt2 a", 7, 5)  # name: the GridResource
    assert (b.max_jobs, b.max_idle, b.failure_threshold) == (7, 3, 0.03)


def test_a_bad_entry_is_reported_by_route_and_attribute_and_the_rest_loads(tmp_path):
    cfg = config(
        tmp_path,
        "JOB_ROUTER_ENTRIES = \\\n"
        '  [ GridResource = "gt2 a"; name = "Good"; ] \\\n'
        '  [ GridResource = "gt2 b"; name = "Greedy"; MaxJobs = "lots"; ] \\\n'
        '  [ name = "Nowhere"; ] \\\n'
        '  [ GridResource = "gt2 c"; name = "Broken"; MaxJobs = ; ] \\\n'
        '  [ GridResource = "gt2 d"; name = "Also good"; copy_Cmd = 3; ]\n',
    )
    t = table.load(cfg)
    assert [r.name for r in t.routes] == ["Good"]
    errors = "\n".join(t.errors)
    assert "route 'Greedy'" in errors and "MaxJobs must be a non-negative integer" in errors
    assert "route 'Nowhere'" in errors and "GridResource must be a string" in errors
    assert "entry 4: not a ClassAd" in errors
    assert "route 'Also good'" in errors and "copy_Cmd" in errors


def test_override_routing_entry_and_the_other_sources(tmp_path):
    entries = tmp_path / "entries"
    entries.write_text('[ GridResource = "gt2 f"; name = "A"; MaxJobs = 2; ]\n')
    cmd = tmp_path / "table.sh"
    cmd.write_text(
        '#!/bin/sh\necho \'[ GridResource = "gt2 x"; name = "A"; MaxJobs = 3; '
        'OverrideRoutingEntry = false; ] [ GridResource = "gt2 y"; name = "C"; ]\'\n'
    )
    cmd.chmod(0o755)
    cfg = config(
        tmp_path,
        'JOB_ROUTER_ENTRIES = [ GridResource = "gt2 e"; name = "A"; MaxJobs = 1; ]\n'
        f"JOB_ROUTER_ENTRIES_FILE = {entries}\nJOB_ROUTER_ENTRIES_CMD = {cmd}\n",
    )
    t = table.load(cfg)
    # The file's A replaced the first (override by default); the command's A did not.
    assert [(r.name, r.max_jobs, r.grid_resource) for r in t.routes] == [
        ("A", 2, "gt2 f"),
        ("C", 100, "gt2 y"),
    ]


def test_attribute_operations_apply_in_order(tmp_path):
    cfg = config(
        tmp_path,
        'JOB_ROUTER_ENTRIES = [ TargetUniverse = 5; name = "local"; \\\n'
        '  copy_Requirements = "OriginalRequirements"; set_Requirements = MY.Memory > 10; \\\n'
        "  delete_Secret = true; eval_set_Doubled = 2 * other.ImageSize; \\\n"
        "  set_Flag = other.X; ]\n",
    )
    (route,) = table.load(cfg).routes
    job = ClassAd({"Requirements": ExprTree('Arch == "X86_64"'), "Secret": 1, "ImageSize": 21})
    copy = routed_copy(job, route)
    assert str(copy.lookup("OriginalRequirements")) == 'Arch == "X86_64"'
    assert str(copy.lookup("Requirements")) == "MY.Memory > 10"
    assert "Secret" not in copy and copy["Doubled"] == 42
    assert str(copy.lookup("Flag")) == "other.X"  # set_: not evaluated
    assert copy["JobUniverse"] == 5 and "GridResource" not in copy
