"""A simulated pool: the real collector, negotiator and schedd under a master, with the
pool simulator's execute machines instead of a startd.

condorx sim up --machines 1000 --slots 100 [--dir DIR] [--duration S]
condorx sim down [--dir DIR]

Jobs submitted to it "run" for their `SimDuration` (else --duration seconds) and end
with exit code 0; condor_q, condor_status and the rest work on it as on any pool.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from condorx import locate
from condorx.cli.common import fail, load
from condorx.cli.pool import PERSONAL, answers, count_slots, start_master, stop_master

SIMULATED = """\
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, SIM
SIM_MACHINES = {machines}
NUM_CPUS = {slots}
MEMORY = {memory}
SIM_JOB_DURATION = {duration}
START = TRUE
# A job's slot is held while it runs: one schedd holds a connection per running job.
MAX_JOBS_PER_SUBMISSION = 10000000
"""


def _root(directory: Path | None) -> Path:
    return (directory or Path(os.path.expanduser("~")) / ".condorx-sim").resolve()


@click.group()
def sim() -> None:
    """Start and stop a simulated pool: real daemons, simulated execute machines."""


DIR = click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path),
    help="Where the pool lives (default: ~/.condorx-sim).",
)


@sim.command()
@click.option("--machines", default=100, show_default=True, help="Simulated execute machines.")
@click.option("--slots", default=8, show_default=True, help="Slots on each machine.")
@click.option(
    "--duration", default=60.0, show_default=True, help="Seconds a job runs (else SimDuration)."
)
@DIR
def up(machines: int, slots: int, duration: float, directory: Path | None) -> None:
    """Start a simulated pool (writing its configuration when it has none)."""
    if machines < 1 or slots < 1:
        fail("condorx sim up: --machines and --slots must be at least 1")
    root = _root(directory)
    config = root / "condor_config"
    env = {**os.environ, "CONDORX_CONFIG": str(config)}
    os.environ["CONDORX_CONFIG"] = str(config)
    if config.exists():
        cfg = load("condorx sim up", "MASTER")
        if locate.master_socket(cfg).exists() and answers(cfg):
            fail(f"condorx sim up: a pool is already running from {root} (condorx sim down)")
    text = PERSONAL.format(dir=root) + SIMULATED.format(
        machines=machines, slots=slots, memory=slots * 1024, duration=duration
    )
    root.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    cfg = load("condorx sim up", "MASTER")
    start_master(cfg, env)
    wanted = machines * slots
    deadline = time.monotonic() + 60 + wanted / 1000
    while count_slots(cfg) < wanted:
        if time.monotonic() > deadline:
            fail(f"condorx sim up: the pool did not come up; see {locate.log_dir(cfg)}")
        time.sleep(0.5)
    click.echo(f"Simulated pool up in {root}: {machines} machines of {slots} slots.")
    click.echo(f"Use it from other shells with: export CONDORX_CONFIG={config}")


@sim.command()
@DIR
def down(directory: Path | None) -> None:
    """Stop the simulated pool."""
    config = _root(directory) / "condor_config"
    if not config.exists():
        fail(f"condorx sim down: no simulated pool in {config.parent}")
    os.environ["CONDORX_CONFIG"] = str(config)
    stop_master(load("condorx sim down", "MASTER"), "condorx sim down")
    click.echo("Simulated pool stopped.")
