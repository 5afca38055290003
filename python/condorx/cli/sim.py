"""A simulated pool: the real collector, negotiator and schedd under a master, with the
pool simulator's execute machines instead of a startd.

condorx sim up --machines 1000 --slots 100 [--schedds N] [--dir DIR] [--duration S|DIST]
condorx sim up --machine-ads STATUS_DUMP [--duration ...]
condorx sim jobs QUEUE_DUMP [--dir DIR]
condorx sim down [--dir DIR]

Jobs submitted to it "run" for their `SimDuration` (else --duration: seconds, or a
distribution such as `exponential(600)`, see `condorx.sim.durations`) and end with exit
code 0; condor_q, condor_status and the rest work on it as on any pool. With
--machine-ads, its machines are a real pool's, from that pool's `condor_status -l`;
`sim jobs` puts a real queue's jobs (`condor_q -l`) in it, each under its own owner, so
the pool shows how that queue drains under this configuration. With --schedds N, the
pool has N schedds (the first the pool's own, the others named schedd2, schedd3, ...,
each with its own spool, as HTCondor's masters run more than one): submit to one with
`condor_submit -name schedd2`.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from condorx.cli.common import fail, load, run_client
from condorx.cli.pool import PERSONAL, answers, start_master, stop_master, wait_ready
from condorx.cli.sim_whatif import whatif_command
from condorx.client.schedd import ScheddClient
from condorx.language.config import load_config
from condorx.language.config.errors import ConfigError
from condorx.sim import pool_dump, queue_dump
from condorx.sim.durations import Durations
from condorx.transport import locate
from condorx.transport.connection import daemon_credentials

SIMULATED = """\
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, SIM
SIM_MACHINES = {machines}
SIM_MACHINE_ADS = {machine_ads}
NUM_CPUS = {slots}
MEMORY = {memory}
SIM_JOB_DURATION = {duration}
START = TRUE
# `condorx sim jobs` submits a real queue's jobs each under its own owner.
QUEUE_SUPER_USER_MAY_IMPERSONATE = .*
# A job's slot is held while it runs: one schedd holds a connection per running job.
MAX_JOBS_PER_SUBMISSION = 10000000
# A simulated pool runs at the size it simulates: HTCondor's defaults (10,000 running,
# 100,000 per owner) are an administrator's to raise for a pool this big, as here.
MAX_JOBS_RUNNING = 10000000
MAX_JOBS_PER_OWNER = 10000000
"""


def more_schedds(count: int) -> str:
    """The configuration of a pool's schedds beyond its first: each run by the master
    under a local name, with a spool, logs and addresses of its own."""
    text = ""
    for n in range(2, count + 1):
        local = f"SCHEDD{n}"
        text += (
            f"DAEMON_LIST = $(DAEMON_LIST), {local}\n"
            f"{local} = condor_schedd\n{local}_ARGS = -local-name {local}\n"
            f"{local}.SCHEDD_NAME = schedd{n}@$(FULL_HOSTNAME)\n"
            f"{local}.SPOOL = $(LOCAL_DIR)/spool.schedd{n}\n"
            f"{local}.SCHEDD_ADDRESS_FILE = $(LOG)/.schedd_address.schedd{n}\n"
            f"{local}.SCHEDD_SOCKET = $(LOG)/schedd{n}.sock\n"
            f"{local}.SCHEDD_LOG = $(LOG)/SchedLog.schedd{n}\n"
            f"{local}.SCHEDD_AUDIT_LOG = $(LOG)/SchedAuditLog.schedd{n}\n"
        )
    return text


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
    "--duration",
    default="60",
    show_default=True,
    help="Seconds a job runs unless it has SimDuration, or a distribution: uniform(LO, HI),"
    " exponential(MEAN), normal(MEAN, SD), lognormal(MU, SIGMA), weibull(SCALE, SHAPE).",
)
@click.option(
    "--machine-ads",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A real pool's `condor_status -l` output: simulate its machines instead.",
)
@click.option("--schedds", default=1, show_default=True, help="Schedds in the pool.")
@DIR
def up(
    machines: int,
    slots: int,
    duration: str,
    machine_ads: Path | None,
    schedds: int,
    directory: Path | None,
) -> None:
    """Start a simulated pool (writing its configuration when it has none)."""
    if machines < 1 or slots < 1 or schedds < 1:
        fail("condorx sim up: --machines, --slots and --schedds must be at least 1")
    try:
        Durations.parse(duration, knob="--duration")
        dumped = pool_dump.load(machine_ads.resolve()) if machine_ads else None
    except ConfigError as e:
        fail(f"condorx sim up: {e}")
    root = _root(directory)
    config = root / "condor_config"
    env = {**os.environ, "CONDORX_CONFIG": str(config)}
    os.environ["CONDORX_CONFIG"] = str(config)
    if config.exists():
        cfg = load("condorx sim up", "MASTER")
        if os.path.exists(locate.master_socket(cfg)) and answers(cfg):
            fail(f"condorx sim up: a pool is already running from {root} (condorx sim down)")
    text = (
        PERSONAL.format(dir=root)
        + SIMULATED.format(
            machines=machines,
            slots=slots,
            memory=slots * 1024,
            duration=duration,
            machine_ads=machine_ads.resolve() if machine_ads else "",
        )
        + more_schedds(schedds)
    )
    root.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    cfg = load("condorx sim up", "MASTER")
    start_master(cfg, env)
    wanted = machines * slots
    if dumped is not None:
        machines, wanted = len(dumped), sum(len(m.slots) for m in dumped)
    # The simulator stands in for the startd: its slots, not a startd's file, say it is up.
    others = [
        locate.schedd_address_file(load_config(subsystem="SCHEDD", local_name=f"SCHEDD{n}"))
        for n in range(2, schedds + 1)
    ]
    timeout = 60 + wanted / 1000
    wait_ready(cfg, "condorx sim up", wanted, startd=False, timeout=timeout, also=others)
    plural = "s" if machines != 1 else ""
    also = f", {schedds} schedds" if schedds > 1 else ""
    click.echo(f"Simulated pool up in {root}: {machines} machine{plural}, {wanted} slots{also}.")
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


@sim.command()
@click.argument("dump", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@DIR
def jobs(dump: Path, directory: Path | None) -> None:
    """Submit a real queue's jobs (`condor_q -l` output) to the simulated pool, each
    under its own owner."""
    config = _root(directory) / "condor_config"
    if not config.exists():
        fail(f"condorx sim jobs: no simulated pool in {config.parent} (condorx sim up)")
    os.environ["CONDORX_CONFIG"] = str(config)
    cfg = load("condorx sim jobs")
    try:
        queue = queue_dump.load(dump)
    except queue_dump.DumpError as e:
        fail(f"condorx sim jobs: {e}")
    if not queue.clusters:
        fail(f"condorx sim jobs: {dump} has no job that would run (left out: {_left(queue)})")
    try:
        address = locate.read_address(locate.schedd_address_file(cfg))
    except OSError:
        fail(f"condorx sim jobs: the pool in {config.parent} is not running (condorx sim up)")
    # The pool's own identity may submit for any owner; the user holds its key.
    client = ScheddClient(cfg, address, daemon_credentials(cfg))

    async def submit_all() -> None:
        for c in queue.clusters:
            await client.submit(c.cluster, c.procs)

    run_client(submit_all, tool="condorx sim jobs")
    click.echo(
        f"{queue.jobs} job(s) of {len(queue.owners)} owner(s) submitted in"
        f" {len(queue.clusters)} cluster(s); left out: {_left(queue)}."
    )


def _left(queue: queue_dump.Queue) -> str:
    return ", ".join(f"{n} {why}" for why, n in sorted(queue.skipped.items())) or "none"


sim.add_command(whatif_command)
