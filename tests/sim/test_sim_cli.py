"""`condorx sim up` starts a simulated pool under a master (the real collector,
negotiator and schedd, and simulated machines), jobs run on it, and `condorx sim down`
stops every daemon."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from condorx.client import master
from condorx.language.config import load_config
from condorx.testing.pool import alive, wait_for
from condorx.testing.tools import run_tool

pytestmark = pytest.mark.daemons  # starts its own daemons


def tools(d: str) -> tuple[Path, dict[str, str], Callable[..., str]]:
    """A simulated pool's directory, the environment its tools run in, and a tool run
    there that must succeed (its output)."""
    root = Path(d)
    env = {k: v for k, v in os.environ.items() if k != "CONDORX_TOKEN"}
    env["CONDORX_CONFIG"] = str(root / "condor_config")

    def tool(target: str, *args: str) -> str:
        r = run_tool(target, args, env, root)
        assert r.returncode == 0, r.stderr
        return r.stdout

    return root, env, tool


def test_sim_up_runs_a_queue_and_sim_down_stops_it():
    with tempfile.TemporaryDirectory(prefix="simcli") as d:
        root, env, tool = tools(d)

        up = ["sim", "up", "--machines", "3", "--slots", "2", "--duration", "1", "--dir", d]
        try:
            assert "3 machines, 6 slots" in tool("condorx.cli.main", *up)
            names = tool("condorx.cli.status", "-af", "Name").split()
            assert len(names) == 6 and {n.split("@")[1].split(".")[0] for n in names} == {
                "sim1",
                "sim2",
                "sim3",
            }
            (root / "job.sub").write_text("executable = /bin/true\nqueue 10\n")
            tool("condorx.cli.submit", "job.sub")
            wait_for(
                lambda: len(tool("condorx.cli.history", "-af", "ExitCode").split()) == 10,
                "the 10 simulated jobs to finish",
                timeout=120,
            )
            cfg = load_config(path=root / "condor_config", environ=env)
            daemons = trio.run(master.status, cfg)
            assert sorted(daemons) == ["collector", "negotiator", "schedd", "sim"]
        finally:
            down = run_tool("condorx.cli.main", ["sim", "down", "--dir", d], env, root)
        assert down.returncode == 0 and "stopped" in down.stdout, down.stderr
        for daemon in daemons.values():
            wait_for(lambda pid=daemon["pid"]: not alive(pid), "every daemon to stop")


DUMPS = Path(__file__).parent / "dumps"


def test_sim_up_simulates_a_real_pools_machines_from_its_status_dump():
    with tempfile.TemporaryDirectory(prefix="simcli") as d:
        root, env, tool = tools(d)
        dump = str(DUMPS / "gthain-status.ads")
        up = ["sim", "up", "--machine-ads", dump, "--duration", "exponential(5)", "--dir", d]
        try:
            assert "1 machine, 8 slots" in tool("condorx.cli.main", *up)
            names = tool("condorx.cli.status", "-af", "Name").split()
            assert sorted(names) == [f"slot{i}@gthain.localdomain" for i in range(1, 9)]
        finally:
            down = run_tool("condorx.cli.main", ["sim", "down", "--dir", d], env, root)
        assert down.returncode == 0, down.stderr


def test_sim_up_refuses_what_it_cannot_simulate_before_starting_anything(tmp_path):
    env = {**os.environ, "CONDORX_CONFIG": str(tmp_path / "condor_config")}
    bad = tmp_path / "bad.ads"
    bad.write_text('MyType = "Machine"\nName = "slot1@a"\nMachine = "a"\n')
    for args, says in [
        (["--duration", "gamma(1, 2)"], "--duration: not seconds or a distribution"),
        (["--machine-ads", str(bad)], f"SIM_MACHINE_ADS: {bad}, ad 1: SlotID is not an integer"),
    ]:
        up = ["sim", "up", *args, "--dir", str(tmp_path)]
        r = run_tool("condorx.cli.main", up, env, tmp_path)
        assert r.returncode == 1 and says in r.stderr and "Traceback" not in r.stderr
        assert not (tmp_path / "condor_config").exists()


def test_sim_up_with_two_schedds_runs_the_jobs_of_each_on_the_same_machines():
    with tempfile.TemporaryDirectory(prefix="simcli") as d:
        root, env, tool = tools(d)

        up = ["sim", "up", "--machines", "2", "--slots", "2", "--schedds", "2", "--dir", d]
        try:
            assert "2 machines, 4 slots, 2 schedds" in tool("condorx.cli.main", *up)
            (root / "job.sub").write_text("executable = /bin/true\n+SimDuration = 1\nqueue 3\n")
            tool("condorx.cli.submit", "job.sub")
            tool("condorx.cli.submit", "-name", "schedd2", "job.sub")

            # Each schedd keeps its own history: three jobs in each.
            second = {**env, "_CONDOR_HISTORY": str(root / "spool.schedd2" / "history")}

            def finished(environ: dict[str, str]) -> list[str]:
                r = run_tool("condorx.cli.history", ["-af", "ExitCode"], environ, root)
                return r.stdout.split()

            wait_for(
                lambda: finished(env) == ["0"] * 3 and finished(second) == ["0"] * 3,
                "both schedds' jobs to run on the simulated machines",
                timeout=120,
            )
            cfg = load_config(path=root / "condor_config", environ=env)
            assert sorted(trio.run(master.status, cfg)) == [
                "collector",
                "negotiator",
                "schedd",
                "schedd2",
                "sim",
            ]
            unknown = run_tool("condorx.cli.q", ["-name", "schedd9"], env, root)
            assert unknown.returncode != 0 and "no single schedd named 'schedd9'" in unknown.stderr
        finally:
            run_tool("condorx.cli.main", ["sim", "down", "--dir", d], env, root)
